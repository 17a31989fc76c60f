package identity_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/event"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/identity"
)

// presenceWrites counts, with the driver's command monitor, the updates
// of identity's citizens that set last_seen_at, by agent.
type presenceWrites struct {
	mu      sync.Mutex
	byAgent map[string]int
}

func (p *presenceWrites) monitor() *event.CommandMonitor {
	return &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		if e.CommandName != "update" || e.Command.Lookup("update").StringValue() != "citizens" {
			return
		}
		docs, _ := e.Command.Lookup("updates").Array().Values()
		for _, d := range docs {
			u := d.Document()
			if _, err := u.LookupErr("u", "$set", "last_seen_at"); err != nil {
				continue
			}
			id, _ := u.Lookup("q", "_id").StringValueOK()
			p.mu.Lock()
			p.byAgent[id]++
			p.mu.Unlock()
		}
	}}
}

func (p *presenceWrites) of(agentID string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.byAgent[agentID]
}

// On an exclusive database every read of presence is answered from the
// sightings in memory, so an agent's presence is written at most once per
// identity.PresenceWriteEvery (and at a clean stop) instead of once a second
// while it acts: the updates that kept identity's write-ahead log growing.
// On a shared database each flush writes it, for the other replicas.
func TestPresenceWritesOnExclusiveDatabase(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	writes := &presenceWrites{byAgent: map[string]int{}}
	client, err := mongo.Connect(ctx, options.Client().ApplyURI(testkit.MongoURI(t)).SetRetryWrites(false).SetMonitor(writes.monitor()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	clk := clock.NewFixed(time.Date(2030, 5, 1, 12, 0, 0, 0, time.UTC))
	deps := kit.Deps(clk)
	deps.DB = mongox.NewDB(client.Database(kit.DB.Name()), testkit.Mode())
	deps.Citizens = nil
	svc, err := identity.New(ctx, deps, identity.Options{})
	if err != nil {
		t.Fatal(err)
	}
	deps.Auth.Seen = svc.Seen
	app := kit.App(svc)
	runCtx, stop := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { _ = svc.Run(runCtx); close(stopped) }()
	t.Cleanup(func() { stop(); <-stopped })
	do := func(a testkit.Agent, method, path string, body any) testkit.Response {
		return testkit.Do(t, app, testkit.Request{Method: method, Path: path, Body: body, Headers: a.Headers()})
	}

	ada := kit.NewAgent("Ada", nil)
	do(ada, http.MethodPost, "/api/world/register", map[string]any{"name": "Ada"}).ExpectStatus(t, 201)
	testkit.Eventually(t, 5*time.Second, "the first sighting written", func() bool { return writes.of(ada.ID) == 1 })

	// Ada acts across several flushes: each witness, an agent seen for the
	// first time, is written by the next flush, which would write Ada too.
	var last time.Time
	for i := 0; i < 3; i++ {
		last = clk.Now().Add(time.Duration(i+1) * 10 * time.Second)
		clk.Set(last)
		do(ada, http.MethodGet, "/api/world/whoami", nil).ExpectStatus(t, 200)
		witness := kit.NewAgent("Witness", nil)
		do(witness, http.MethodGet, "/api/world/whoami", nil).ExpectStatus(t, 200)
		testkit.Eventually(t, 5*time.Second, "a flush after the request", func() bool { return writes.of(witness.ID) == 1 })
	}
	want := 1 + 3 // shared: every flush writes the newest sighting
	if testkit.Mode() == mongox.Exclusive {
		want = 1 // the rest waits in memory
	}
	if n := writes.of(ada.ID); n != want {
		t.Fatalf("Ada's presence was written %d times across 4 flushes, want %d on the %v backend", n, want, testkit.Mode())
	}
	r := do(ada, http.MethodGet, "/api/world/profile", nil)
	if p, _ := r.Body["profile"].(map[string]any); p["last_seen_at"] != clock.Timestamp(last) {
		t.Fatalf("the profile must show the newest sighting while it waits in memory (%v): %s", clock.Timestamp(last), r.Raw)
	}

	// A clean stop writes what still waits.
	stop()
	<-stopped
	var stored struct {
		LastSeenAt time.Time `bson:"last_seen_at"`
	}
	if err := kit.DB.Collection("citizens").FindOne(ctx, bson.M{"_id": ada.ID}).Decode(&stored); err != nil {
		t.Fatal(err)
	}
	if !stored.LastSeenAt.Equal(last) {
		t.Fatalf("stored last_seen_at after a clean stop: %v, want the newest sighting %v", stored.LastSeenAt, last)
	}
}
