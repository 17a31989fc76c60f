package auth_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/auth/mongoledger"
	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/ratelimit"
	"sharedworld.dev/pkg/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// replica is one process of a service: its own auth middleware and replay
// cache over a database handle of its own on the shared database.
func (f *fixture) replica(t *testing.T, kit *testkit.Kit) *fiber.App {
	t.Helper()
	return f.replicaOn(f.ledger(t, kit))
}

func (f *fixture) ledger(t *testing.T, kit *testkit.Kit) *mongoledger.Ledger {
	t.Helper()
	db := mongox.NewDB(kit.DB.Database, kit.DB.Mode())
	ledger, err := mongoledger.New(kit.Ctx(), db, kit.Logger)
	if err != nil {
		t.Fatal(err)
	}
	return ledger
}

func (f *fixture) replicaOn(ledger auth.SignatureLedger) *fiber.App {
	mw := &auth.Middleware{Verifier: f.verifier, Replay: auth.NewDurableReplayCache(ledger)}
	app := httpx.NewApp(httpx.Options{Service: "authtest"})
	app.All("/echo", mw.Required(), func(c *fiber.Ctx) error { return httpx.OK(c, 200, nil) })
	return app
}

// heldLedger is a ledger whose waited-for first uses wait until released,
// as when the gate database is slow to answer.
type heldLedger struct {
	*mongoledger.Ledger
	release chan struct{}
}

func (h heldLedger) FirstUse(ctx context.Context, key string, expires time.Time) (bool, error) {
	<-h.release
	return h.Ledger.FirstUse(ctx, key, expires)
}

// A read is answered while the ledger holds back every record that is
// waited for; a write waits for its own, since a replayed write must never
// take effect twice.
func TestReadsDoNotWaitForTheirSignatureRecord(t *testing.T) {
	kit := testkit.New(t)
	f := newFixture(t)
	a := f.agent(t, nil)
	held := heldLedger{Ledger: f.ledger(t, kit), release: make(chan struct{})}
	app := f.replicaOn(held)
	signed := func(method, nonce string) testkit.Request {
		h := headers(a.id, a.cert)
		h["X-Agent-Signature"] = auth.SignRequestNonce(a.key, method, "/echo", time.Now().Unix(), nil, nonce)
		return testkit.Request{Method: method, Path: "/echo", Headers: h}
	}
	wrote, read := make(chan testkit.Response, 1), make(chan testkit.Response, 1)
	go func() { wrote <- testkit.Do(t, app, signed("POST", "write")) }()
	go func() { read <- testkit.Do(t, app, signed("GET", "read")) }()
	select {
	case r := <-read:
		r.ExpectStatus(t, 200)
	case <-time.After(10 * time.Second):
		close(held.release)
		t.Fatal("the read waited for its signature's record")
	}
	select {
	case r := <-wrote:
		t.Fatalf("the write was answered (%d) before its signature was recorded", r.Status)
	default:
	}
	close(held.release)
	(<-wrote).ExpectStatus(t, 200)
}

// A read's signature is refused at once by the process that served it, and
// by every replica and after a restart once its record landed.
func TestAReadsSignatureIsRefusedEverywhereOnceRecorded(t *testing.T) {
	kit := testkit.New(t)
	f := newFixture(t)
	a := f.agent(t, nil)
	h := headers(a.id, a.cert)
	h["X-Agent-Signature"] = auth.SignRequestNonce(a.key, "GET", "/echo", time.Now().Unix(), nil, "read-once")
	req := testkit.Request{Method: "GET", Path: "/echo", Headers: h}
	first := f.replica(t, kit)
	testkit.Do(t, first, req).ExpectStatus(t, 200)
	testkit.Do(t, first, req).ExpectError(t, 401, "unauthenticated")
	// The record lands with the ledger's next insert: a fresh replica
	// (another process, or this one restarted) asked until then answers
	// the read once more, and refuses it from then on.
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := testkit.Do(t, f.replica(t, kit), req)
		if r.Status == 401 {
			break
		}
		if r.Status != 200 || time.Now().After(deadline) {
			t.Fatalf("a fresh replica answered the recorded read %d: %s", r.Status, r.Raw)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestUsedSignatureIsRefusedAfterARestart(t *testing.T) {
	kit := testkit.New(t)
	f := newFixture(t)
	a := f.agent(t, nil)
	body := []byte(`{"x":1}`)
	h := headers(a.id, a.cert)
	h["X-Agent-Signature"] = auth.SignRequestNonce(a.key, "POST", "/echo", time.Now().Unix(), body, "restart")
	req := testkit.Request{Method: "POST", Path: "/echo", Body: body, Headers: h}

	testkit.Do(t, f.replica(t, kit), req).ExpectStatus(t, 200)
	// The process restarts: a new middleware, an empty memory, the same database.
	r := testkit.Do(t, f.replica(t, kit), req)
	r.ExpectError(t, 401, "unauthenticated")
	if r.Body["message"] != "This request signature was already used." {
		t.Fatalf("replay after a restart: %s", r.Raw)
	}
}

func TestTwoReplicasAcceptASignatureOnce(t *testing.T) {
	kit := testkit.New(t)
	f := newFixture(t)
	a := f.agent(t, nil)
	replicas := []*fiber.App{f.replica(t, kit), f.replica(t, kit)}
	now := time.Now().Unix()
	for round, nonce := range []string{"r1", "r2", "r3", "r4", "r5"} {
		body := []byte(`{"round":` + string(rune('0'+round)) + `}`)
		h := headers(a.id, a.cert)
		h["X-Agent-Signature"] = auth.SignRequestNonce(a.key, "POST", "/echo", now, body, nonce)
		var mu sync.Mutex
		statuses := map[int]int{}
		var wg sync.WaitGroup
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func(app *fiber.App) {
				defer wg.Done()
				r := testkit.Do(t, app, testkit.Request{Method: "POST", Path: "/echo", Body: body, Headers: h})
				mu.Lock()
				statuses[r.Status]++
				mu.Unlock()
			}(replicas[i%2])
		}
		wg.Wait()
		if statuses[200] != 1 || statuses[401] != 7 {
			t.Fatalf("round %d: one signature sent 8 times to two replicas: statuses %v, want one 200 and seven 401", round, statuses)
		}
	}
}

func TestLedgerSweepsExpiredSignatures(t *testing.T) {
	kit := testkit.New(t)
	ctx := context.Background()
	l, err := mongoledger.New(ctx, kit.DB, kit.Logger)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for key, exp := range map[string]time.Time{"old": now.Add(-time.Second), "live": now.Add(time.Minute)} {
		if first, err := l.FirstUse(ctx, key, exp); err != nil || !first {
			t.Fatalf("first use of %s: %v %v", key, first, err)
		}
	}
	if n, err := l.Sweep(ctx, now); err != nil || n != 1 {
		t.Fatalf("sweep removed %d (%v), want the one expired signature", n, err)
	}
	if first, _ := l.FirstUse(ctx, "live", now.Add(time.Minute)); first {
		t.Fatal("a signature inside its window must stay recorded after a sweep")
	}
}

// Every authenticated write counts against the agent's writes budget; reads
// and refused writes do not.
func TestAuthenticatedWritesHaveABudget(t *testing.T) {
	f := newFixture(t)
	a, b := f.agent(t, nil), f.agent(t, nil)
	rules, err := ratelimit.Parse(map[string]string{ratelimit.Writes: "3/1h"})
	if err != nil {
		t.Fatal(err)
	}
	mw := &auth.Middleware{Verifier: f.verifier, Replay: auth.NewReplayCache(), Limits: ratelimit.New(rules, ratelimit.NewMemory(), nil)}
	app := httpx.NewApp(httpx.Options{Service: "authtest"})
	app.All("/echo", mw.Required(), func(c *fiber.Ctx) error { return httpx.OK(c, 200, nil) })
	for _, method := range []string{"POST", "GET", "PUT", "GET", "DELETE"} {
		testkit.Do(t, app, testkit.Request{Method: method, Path: "/echo", Headers: headers(a.id, a.cert)}).ExpectStatus(t, 200)
	}
	for _, method := range []string{"POST", "PATCH", "DELETE"} {
		r := testkit.Do(t, app, testkit.Request{Method: method, Path: "/echo", Headers: headers(a.id, a.cert)})
		r.ExpectError(t, 429, "rate_limited")
		if r.Header["Retry-After"] == "" || !strings.Contains(r.Body["hint"].(string), "Wait ") {
			t.Fatalf("a refusal gives the wait: %v %s", r.Header, r.Raw)
		}
	}
	testkit.Do(t, app, testkit.Request{Method: "GET", Path: "/echo", Headers: headers(a.id, a.cert)}).ExpectStatus(t, 200)
	testkit.Do(t, app, testkit.Request{Method: "POST", Path: "/echo", Headers: headers(b.id, b.cert)}).ExpectStatus(t, 200)
	// An anonymous or unauthenticated write is refused before it is counted.
	testkit.Do(t, app, testkit.Request{Method: "POST", Path: "/echo"}).ExpectError(t, 401, "unauthenticated")
}
