package bulletin_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/bulletin"
)

// replica is one bulletin process of a world shared by several: its own
// database handle (its own locks and memory, as another process has) on
// the kit's database and brokers.
type replica struct {
	svc  *bulletin.Service
	app  *fiber.App
	base string // its socket, for a reader
	stop func()
}

func startReplica(t *testing.T, kit *testkit.Kit, role bulletin.Role, name string) *replica {
	t.Helper()
	deps := kit.Deps(nil)
	deps.DB = kit.ReplicaDB()
	svc, err := bulletin.New(kit.Ctx(), deps, bulletin.Options{Role: role, Holder: name, Heartbeat: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	r := &replica{svc: svc, app: kit.App(svc)}
	if role == bulletin.RoleReader {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go func() { _ = httpx.Serve(r.app, ln) }()
		r.base = "http://" + ln.Addr().String()
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = svc.Run(ctx); close(done) }()
	var once sync.Once
	r.stop = func() {
		once.Do(func() {
			cancel()
			<-done
			_ = r.app.ShutdownWithTimeout(time.Second)
		})
	}
	t.Cleanup(r.stop)
	return r
}

// leaderOf waits for one of the aggregators to lead and returns it.
func leaderOf(t *testing.T, aggs ...*replica) *replica {
	t.Helper()
	var leader *replica
	testkit.Eventually(t, 20*time.Second, "an aggregator leads", func() bool {
		n := 0
		for _, a := range aggs {
			if a.svc.Leading() {
				leader, n = a, n+1
			}
		}
		if n > 1 {
			t.Fatalf("%d aggregators lead at once", n)
		}
		return n == 1
	})
	return leader
}

// TestReplicasServeOneFeedAcrossAHandover: two aggregator replicas and two
// readers on one database. Followers move between the readers at random,
// resuming with Last-Event-ID, while the events are published; the leading
// aggregator stops halfway and the standby takes over. Every follower sees
// every item exactly once, in the stream's order, and both readers end up
// serving the same document.
func TestReplicasServeOneFeedAcrossAHandover(t *testing.T) {
	const (
		followers = 6
		items     = 600
		batch     = 50
	)
	kit := testkit.New(t)
	aggA := startReplica(t, kit, bulletin.RoleAggregator, "aggregator-a")
	aggB := startReplica(t, kit, bulletin.RoleAggregator, "aggregator-b")
	first := leaderOf(t, aggA, aggB)
	readers := []*replica{startReplica(t, kit, bulletin.RoleReader, "reader-1"), startReplica(t, kit, bulletin.RoleReader, "reader-2")}
	bases := []string{readers[0].base, readers[1].base}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	subs := make([]*resumingReader, followers)
	var wg sync.WaitGroup
	for i := range subs {
		s := &resumingReader{bases: bases, want: items, rng: rand.New(rand.NewSource(int64(i)))}
		if err := s.connect(ctx); err != nil {
			t.Fatal(err)
		}
		subs[i] = s
		wg.Add(1)
		go func() { defer wg.Done(); s.err = s.run(ctx) }()
	}

	publish := func(from, to int) {
		for at := from; at < to; at += batch {
			evs := make([]events.Event, 0, batch)
			for i := at; i < min(at+batch, to); i++ {
				evs = append(evs, gardenEvent(i))
			}
			kit.Publish(evs...)
		}
	}
	publish(0, items/2)
	testkit.Eventually(t, 30*time.Second, "the first leader applied some events", func() bool { return first.svc.Handled() > 0 })
	first.stop()
	second := leaderOf(t, aggA, aggB)
	if second == first {
		t.Fatal("the stopped aggregator still leads")
	}
	publish(items/2, items)

	followed := make(chan struct{})
	go func() { wg.Wait(); close(followed) }()
	select {
	case <-followed:
	case <-time.After(60 * time.Second):
		cancel()
		<-followed
	}
	checkFollowers(t, subs, items)
	reconnects := 0
	for _, s := range subs {
		reconnects += s.sessions - 1
	}
	t.Logf("%d followers, %d items each, %d reconnects; the first leader applied %d events, the second %d", followers, items, reconnects, first.svc.Handled(), second.svc.Handled())
	testkit.Eventually(t, 20*time.Second, "both readers serve the whole garden", func() bool {
		var tags []string
		for _, r := range readers {
			rd := r.svc.Board().Current()
			if rd == nil {
				return false
			}
			tags = append(tags, rd.ETag)
		}
		return tags[0] == tags[1] && gardenFiles(testkit.Do(t, readers[0].app, testkit.Request{Method: "GET", Path: "/api/world/bulletin"}).Body) == items
	})
}

// checkFollowers checks that every follower saw every garden item exactly
// once, in stream order, and all in the same order.
func checkFollowers(t *testing.T, subs []*resumingReader, items int) {
	t.Helper()
	for i, s := range subs {
		if s.err != nil && !errors.Is(s.err, context.Canceled) {
			t.Fatalf("follower %d: %v (after %d items)", i, s.err, len(s.ids))
		}
		seen := map[string]bool{}
		for j, id := range s.ids {
			if seen[id] {
				t.Fatalf("follower %d: item %d (%s) repeated", i, j, id)
			}
			seen[id] = true
			if j > 0 && s.seqs[j] <= s.seqs[j-1] {
				t.Fatalf("follower %d: item %d (%s) out of order: seq %d after %d", i, j, id, s.seqs[j], s.seqs[j-1])
			}
		}
		for k := range items {
			if !seen[gardenPath(k)] {
				t.Fatalf("follower %d saw %d of %d items; missing %s (and maybe more)", i, len(seen), items, gardenPath(k))
			}
		}
		if fmt.Sprint(s.ids) != fmt.Sprint(subs[0].ids) {
			t.Fatalf("follower %d saw the items in another order than follower 0", i)
		}
	}
}
