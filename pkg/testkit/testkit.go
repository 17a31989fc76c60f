// Package testkit starts the real dependencies in process for tests: one
// embedded FerretDB per test binary (each test gets its own database) and one
// kfake cluster per test (its own topics), plus a test identity provider.
package testkit

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/mongo"

	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/embedded"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/proto/catalog"
)

var (
	mongoOnce   sync.Once
	mongoServer *embedded.Mongo
	mongoClient *mongo.Client
	mongoDir    string
	mongoErr    error
)

// Main runs a test binary's tests and removes the embedded database files
// afterwards. Use it from TestMain: func TestMain(m *testing.M) { testkit.Main(m) }.
func Main(m *testing.M) {
	code := m.Run()
	if mongoServer != nil {
		_ = mongoClient.Disconnect(context.Background())
		mongoServer.Stop()
	}
	if mongoDir != "" {
		_ = os.RemoveAll(mongoDir)
	}
	os.Exit(code)
}

// BackendEnv chooses how tests write their databases: "embedded" (the
// default) as the local runner does, this process the only writer; "shared"
// as replicas on MongoDB do, every write guarded by its version and every
// MongoDB query branch taken. make test runs both.
const BackendEnv = "SHAREDWORLD_TEST_BACKEND"

// MongoURIEnv, when set, runs the tests against that MongoDB instead of the
// embedded FerretDB (each test still gets a database of its own).
const MongoURIEnv = "WORLD_TEST_MONGO_URI"

// Mode is the backend mode SHAREDWORLD_TEST_BACKEND selects.
func Mode() mongox.Mode {
	switch os.Getenv(BackendEnv) {
	case "", "embedded", "exclusive":
		return mongox.Exclusive
	case "shared":
		return mongox.Shared
	default:
		panic(fmt.Sprintf("testkit: %s=%q: want embedded or shared", BackendEnv, os.Getenv(BackendEnv)))
	}
}

func sharedMongo() (*mongo.Client, error) {
	mongoOnce.Do(func() {
		if uri := os.Getenv(MongoURIEnv); uri != "" {
			mongoClient, mongoErr = mongox.Connect(context.Background(), uri)
			return
		}
		mongoDir, mongoErr = os.MkdirTemp("", "sharedworld-test-*")
		if mongoErr != nil {
			return
		}
		quiet := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
		mongoServer, mongoErr = embedded.StartMongo(context.Background(), mongoDir, quiet)
		if mongoErr != nil {
			return
		}
		mongoClient, mongoErr = mongox.Connect(context.Background(), mongoServer.URI, mongox.Uncapped())
	})
	return mongoClient, mongoErr
}

// MongoURI is the address of the tests' MongoDB, for a test that needs a
// client of its own (one it may disconnect).
func MongoURI(t testing.TB) string {
	t.Helper()
	if uri := os.Getenv(MongoURIEnv); uri != "" {
		return uri
	}
	if _, err := sharedMongo(); err != nil {
		t.Fatalf("testkit: embedded MongoDB: %v", err)
	}
	return mongoServer.URI
}

// Kit is one test's world: its database, its Kafka cluster and its identity provider.
type Kit struct {
	T      testing.TB
	Client *mongo.Client
	// DB is the test's own database, written in the mode BackendEnv selects.
	DB      *mongox.DB
	Kafka   *embedded.Kafka
	Brokers []string
	Issuer  auth.Issuer
	// Provider is the test identity provider: Issuer's key plus a revocation list.
	Provider *Provider
	Logger   *slog.Logger

	registry *Registry
}

// New starts a kit for t; everything is torn down when t ends.
func New(t testing.TB) *Kit {
	t.Helper()
	client, err := sharedMongo()
	if err != nil {
		t.Fatalf("testkit: embedded MongoDB: %v", err)
	}
	k, err := embedded.StartKafka(0, catalog.AllTopics()...)
	if err != nil {
		t.Fatalf("testkit: embedded Kafka: %v", err)
	}
	t.Cleanup(k.Stop)
	db := mongox.NewDB(client.Database(dbName(t)), Mode())
	if mongoServer != nil {
		// as the local runner does: copies fill from FerretDB's files
		db.UseScanner(mongoServer)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = db.Drop(ctx)
	})
	_, priv, _ := ed25519.GenerateKey(nil)
	issuer := auth.Issuer{Name: "test-idp", Kid: "test-key-1", Key: priv, Prefix: "emb"}
	return &Kit{
		T: t, Client: client, DB: db, Kafka: k, Brokers: k.Brokers, Issuer: issuer,
		Provider: &Provider{keys: []auth.Key{{Kid: issuer.Kid, PublicKey: issuer.PublicKey()}}, revoked: map[string]time.Time{}},
		Logger:   slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
}

var dbSeq struct {
	sync.Mutex
	n int
}

// dbName is unique per test and within MongoDB's 63-byte name limit.
func dbName(t testing.TB) string {
	dbSeq.Lock()
	dbSeq.n++
	n := dbSeq.n
	dbSeq.Unlock()
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, t.Name())
	if len(name) > 40 {
		name = name[len(name)-40:]
	}
	return fmt.Sprintf("t%d_%d_%s", os.Getpid()%100000, n, name)
}

// Ctx returns a context that ends with the test.
func (k *Kit) Ctx() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	k.T.Cleanup(cancel)
	return ctx
}

// Agent is a test agent with a provider certificate.
type Agent struct {
	ID   string
	Name string
	Key  ed25519.PrivateKey
	Cert json.RawMessage
}

// NewAgent issues a certificate for a fresh agent. extra adds or overrides certificate fields.
func (k *Kit) NewAgent(name string, extra map[string]any) Agent {
	k.T.Helper()
	pub, priv, _ := ed25519.GenerateKey(nil)
	id, cert, err := k.Issuer.Issue(name, pub, time.Now(), extra)
	if err != nil {
		k.T.Fatalf("testkit: issue certificate: %v", err)
	}
	return Agent{ID: id, Name: name, Key: priv, Cert: cert}
}

// Headers returns the credential headers of the agent.
func (a Agent) Headers() map[string]string {
	return map[string]string{"X-Agent-Id": a.ID, "X-Agent-Certificate": string(a.Cert)}
}

// CertBase64 is the certificate in base64 (the header form some clients use).
func (a Agent) CertBase64() string { return base64.StdEncoding.EncodeToString(a.Cert) }

// Provider is an in-memory identity provider for tests.
type Provider struct {
	mu      sync.Mutex
	keys    []auth.Key
	revoked map[string]time.Time
}

// Keys returns the provider's keys.
func (p *Provider) Keys(context.Context) ([]auth.Key, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]auth.Key(nil), p.keys...), nil
}

// Revocations returns the revoked agents.
func (p *Provider) Revocations(context.Context) ([]auth.Revocation, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]auth.Revocation, 0, len(p.revoked))
	for id, at := range p.revoked {
		out = append(out, auth.Revocation{AgentID: id, RevokedAt: at})
	}
	return out, nil
}

// Revoke revokes an agent (seen by verifiers after their next refresh).
func (p *Provider) Revoke(agentID string) {
	p.mu.Lock()
	p.revoked[agentID] = time.Now().UTC()
	p.mu.Unlock()
}

// Verifier returns a started verifier trusting the kit's provider.
func (k *Kit) Verifier() *auth.Verifier {
	v := auth.NewVerifier(auth.VerifierOptions{Provider: k.Provider, Prefix: "emb", Logger: k.Logger})
	v.Start(k.Ctx())
	return v
}

// Eventually polls cond every 10 ms until it holds or the deadline passes.
func Eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", within, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
