package attack

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/hack/crash"

	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/embedded"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/proto/catalog"
)

// The rate limits of the runners the run starts. The single runner has
// limits out of the way of the garden's share and the walk over every
// route; the replicas have small budgets, so spending them is quick.
const (
	singleLimits  = "writes=100000/1m,register_agent=1000/1h,register_source=100000/1h,storage_writes=100000/1m,garden_plantings=100000/1m"
	replicaLimits = "writes=40/1h,register_agent=3/1h,register_source=3/1h,storage_writes=100000/1m,garden_plantings=4/2s"
)

// Options say what to attack.
type Options struct {
	// URL, when set, is a running world to attack (the categories that
	// need restarts or replicas are left out); Token is its ambassador
	// token and Limits its WORLD_RATE_LIMITS.
	URL, Token, Limits string
	// WorkDir holds the runner binary and the data directories of the
	// worlds the run starts itself.
	WorkDir string
	// Log receives the runners' output.
	Log  io.Writer
	Logf func(format string, args ...any)
}

// Given attacks the running world at opts.URL.
func Given(ctx context.Context, opts Options) ([]*Category, error) {
	w := NewWorld(opts.URL, opts.Token)
	doc, err := ReadDocument(w.HTTP, w.URL)
	if err != nil {
		return nil, err
	}
	budgets, err := ParseBudgets(opts.Limits)
	if err != nil {
		return nil, err
	}
	garden, _ := Garden(w, limitsOf(doc))
	clock := &Category{Name: "dev clock"}
	if opts.Token != "" {
		DevClock(w, clock)
	} else {
		clock.Note("no ambassador token (-token): the clock and the ambassador's removals not tried")
	}
	cats := []*Category{garden, RateLimits(budgets, w), Replay(w, nil), Credentials(w, nil), BadInput(w, doc), clock}
	cats[2].Note("one process given by -url: replay across replicas and restarts not tried")
	return cats, nil
}

// Started builds the runner and attacks worlds it starts itself: one
// runner on its own embedded backend (restarted with SIGTERM and SIGKILL),
// and two replicas of another world sharing a database (embedded FerretDB)
// and a broker (embedded Kafka) this process runs.
func Started(ctx context.Context, opts Options) ([]*Category, error) {
	logf := opts.Logf
	logf("building the runner")
	bin, err := crash.Build(ctx, opts.WorkDir)
	if err != nil {
		return nil, err
	}
	quiet := slog.New(slog.NewJSONHandler(io.Discard, nil))
	mongo, err := embedded.StartMongo(ctx, filepath.Join(opts.WorkDir, "shared-mongo"), quiet)
	if err != nil {
		return nil, err
	}
	defer mongo.Stop()
	kafka, err := embedded.StartKafka(0, catalog.AllTopics()...)
	if err != nil {
		return nil, err
	}
	defer kafka.Stop()

	const token = "attack-ambassador-token-0123456789"
	// Replicas on the shared embedded database take longer to be ready.
	const ready = 90 * time.Second
	single := &crash.Runner{Bin: bin, DataDir: filepath.Join(opts.WorkDir, "single"), Token: token, Log: opts.Log, Ready: ready,
		Env: []string{"WORLD_DEV_CLOCK=1", "WORLD_RATE_LIMITS=" + singleLimits}}
	shared := []string{"WORLD_DEV_CLOCK=1", "WORLD_MONGO_URI=" + mongo.URI, "WORLD_KAFKA_BROKERS=" + strings.Join(kafka.Brokers, ","), "WORLD_RATE_LIMITS=" + replicaLimits,
		"WORLD_CLIENT_IP_HEADER=X-Forwarded-For"}
	replicas := []*crash.Runner{
		{Bin: bin, DataDir: filepath.Join(opts.WorkDir, "replica1"), Token: token, Log: opts.Log, Ready: ready, Env: shared},
		{Bin: bin, DataDir: filepath.Join(opts.WorkDir, "replica2"), Token: token, Log: opts.Log, Ready: ready, Env: shared},
	}
	defer single.Kill()
	for _, r := range replicas {
		defer r.Kill()
	}
	logf("starting one runner and two replicas on a shared database")
	// The second replica starts once the first is up: two hosts creating
	// the same indexes at once on the embedded FerretDB lose a connection
	// (MongoDB, which replicas run on, serves that).
	if err := startAll(ctx, []*crash.Runner{single, replicas[0]}); err != nil {
		return nil, err
	}
	if err := replicas[1].Start(ctx); err != nil {
		return nil, err
	}

	var wg sync.WaitGroup
	var one, two []*Category
	var oneErr, twoErr error
	wg.Add(2)
	go func() { defer wg.Done(); one, oneErr = attackSingle(ctx, single, token, logf) }()
	go func() {
		defer wg.Done()
		two, twoErr = attackReplicas(ctx, mongo.URI, NewWorld(replicas[0].URL, token), NewWorld(replicas[1].URL, token), logf)
	}()
	wg.Wait()
	if oneErr != nil {
		return nil, oneErr
	}
	if twoErr != nil {
		return nil, twoErr
	}
	return append(one, two...), nil
}

func startAll(ctx context.Context, rs []*crash.Runner) error {
	errs := make([]error, len(rs))
	var wg sync.WaitGroup
	for i, r := range rs {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = r.Start(ctx) }()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// attackSingle: the garden, bad input and the development clock on the
// single runner, then signatures and the clock across a SIGTERM restart
// and a SIGKILL restart.
func attackSingle(ctx context.Context, r *crash.Runner, token string, logf func(string, ...any)) ([]*Category, error) {
	w := NewWorld(r.URL, token)
	doc, err := ReadDocument(w.HTTP, w.URL)
	if err != nil {
		return nil, err
	}
	logf("garden")
	garden, filler := Garden(w, limitsOf(doc))
	logf("bad input over %d documented operations", len(doc.Operations))
	bad := BadInput(w, doc)
	clock := &Category{Name: "dev clock"}
	before := DevClock(w, clock)

	logf("restarts")
	restart := &Category{Name: "restarts"}
	signer, err := w.NewCitizen(restart, "Restart")
	if err != nil {
		return nil, err
	}
	var used []Used
	for _, life := range []string{"a SIGTERM restart", "a SIGKILL restart"} {
		if u, ok := Sign(w, restart, signer); ok {
			used = append(used, u)
		}
		if strings.Contains(life, "SIGKILL") {
			r.Kill()
		} else {
			r.Stop()
		}
		if err := r.Start(ctx); err != nil {
			return nil, fmt.Errorf("restart after %s: %w", life, err)
		}
		w = NewWorld(r.URL, token)
		for _, u := range used {
			Replayed(w, restart, u, "after "+life)
		}
		KeptClock(w, clock, before, life)
		if filler.ID != "" {
			restart.Refused(w.plant(restart, filler, "/garden/"+strings.ToLower(filler.Name)+"/after-restart.md", []byte("x")),
				"a full share after "+life, 413, "payload_too_large")
		}
	}
	return []*Category{garden, bad, clock, restart}, nil
}

// attackReplicas: replay, rate limits and credentials over two replicas.
func attackReplicas(ctx context.Context, uri string, a, b *World, logf func(string, ...any)) ([]*Category, error) {
	budgets, err := ParseBudgets(replicaLimits)
	if err != nil {
		return nil, err
	}
	issuer, err := devIssuer(ctx, uri)
	if err != nil {
		return nil, err
	}
	logf("replay across replicas")
	replay := Replay(a, b)
	logf("rate limits across replicas")
	limits := RateLimits(budgets, a, b)
	logf("credentials")
	creds := Credentials(a, issuer)
	return []*Category{replay, limits, creds}, nil
}

// devIssuer is the development provider's issuer, its key read from the
// shared database the run owns: it signs an expired certificate.
func devIssuer(ctx context.Context, uri string) (*auth.Issuer, error) {
	client, err := mongox.Connect(ctx, uri)
	if err != nil {
		return nil, err
	}
	defer client.Disconnect(context.WithoutCancel(ctx))
	var k struct {
		Seed []byte `bson:"seed"`
	}
	if err := client.Database("sharedworld_identity").Collection("idp_keys").FindOne(ctx, bson.M{"_id": "dev-1"}).Decode(&k); err != nil {
		return nil, fmt.Errorf("read the development provider's key: %w", err)
	}
	return &auth.Issuer{Name: "shared-world-dev-idp", Kid: "dev-1", Key: ed25519.NewKeyFromSeed(k.Seed), Prefix: "emb"}, nil
}

func limitsOf(doc Document) Limits {
	return Limits{
		ShareFiles: int(doc.Limit("garden_share_files", 100)),
		ShareBytes: int64(doc.Limit("garden_share_bytes", 5<<20)),
		FileBytes:  int64(doc.Limit("file_bytes", 1<<20)),
	}
}
