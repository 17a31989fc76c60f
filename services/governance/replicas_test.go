package governance_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/governance"
)

// replicaApps starts n more governance replicas, each on a database handle
// of its own (its own locks, as another process has; testkit.ReplicaDB).
func (w *world) replicaApps(t *testing.T, n int) []*fiber.App {
	t.Helper()
	return w.kit.ReplicaApps(w.clock, n, func(ctx context.Context, deps platform.Deps) (platform.Service, error) {
		return governance.New(ctx, deps, governance.Options{BallotKey: w.key, Trigger: 1000})
	})
}

// §7's rules that span requests hold across replicas: one citizen's 20
// ballots at once over two replicas count once, and four governance
// checks at once over two replicas apply each transition once (the
// check's lease is in the database).
func TestBallotsAndChecksAcrossReplicas(t *testing.T) {
	w := newWorld(t, 1000)
	apps := w.replicaApps(t, 2)
	cs := w.citizens(t, 4)
	id := w.propose(t, cs[0], "emergency")["proposal_id"].(string)
	statuses := parallel(20, func(i int) testkit.Response {
		return testkit.Do(t, apps[i%2], testkit.Request{Method: http.MethodPost, Path: "/api/world/governance/vote",
			Body: map[string]any{"proposal_id": id, "vote": "for"}, Headers: cs[1].Headers()})
	})
	if statuses[201] != 1 || statuses[409] != 19 {
		t.Fatalf("§7 20 ballots of one citizen over two replicas: %v, want one 201", statuses)
	}
	if p := w.proposal(t, id); p["votes_for"] != float64(1) {
		t.Fatalf("§7 one ballot counted, got %v", p["votes_for"])
	}

	for i := range 3 {
		w.propose(t, cs[2+i%2], "standard")
		w.propose(t, cs[1], "major")
	}
	w.at(start.Add(400 * time.Hour))
	var mu sync.Mutex
	applied := map[string]int{}
	statuses = parallel(4, func(i int) testkit.Response {
		r := testkit.Do(t, apps[i%2], testkit.Request{Method: http.MethodPost, Path: "/api/admin/governance/check", Headers: ambassador()})
		if r.Status == 200 {
			mu.Lock()
			for _, x := range r.Body["transitions"].([]any) {
				m := x.(map[string]any)
				applied[m["id"].(string)+":"+m["to"].(string)]++
			}
			mu.Unlock()
		}
		return r
	})
	if statuses[200] == 0 || statuses[200]+statuses[409] != 4 {
		t.Fatalf("§7 four checks over two replicas answered %v", statuses)
	}
	for tr, n := range applied {
		if n != 1 {
			t.Fatalf("§7 transition %s applied %d times", tr, n)
		}
	}
	if len(applied) < 12 { // six proposals' two transitions, besides the emergency one's
		t.Fatalf("§7 %d transitions applied, want at least 12: %v", len(applied), applied)
	}
}

// parallel runs n requests at once and counts their statuses.
func parallel(n int, do func(i int) testkit.Response) map[int]int {
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := do(i)
			mu.Lock()
			statuses[r.Status]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return statuses
}

// §7's daily proposal cap holds across replicas: one citizen's twelve
// proposals at once over two replicas store exactly DailyProposals (each
// takes one of the day's numbered slots by an insert the slot's unique
// index admits once).
func TestProposalCapAcrossReplicas(t *testing.T) {
	w := newWorld(t, 1000)
	apps := w.replicaApps(t, 2)
	a := w.citizens(t, 1)[0]
	statuses := parallel(12, func(i int) testkit.Response {
		return testkit.Do(t, apps[i%2], testkit.Request{Method: http.MethodPost, Path: "/api/world/governance/propose",
			Body: map[string]any{"title": "Quiet garden", "body": "Hush.", "type": "standard"}, Headers: a.Headers()})
	})
	if statuses[201] != 3 || statuses[429] != 9 {
		t.Fatalf("§7 twelve proposals of one citizen over two replicas: %v, want 3×201 and 9×429", statuses)
	}
	for i, app := range apps {
		r := testkit.Do(t, app, testkit.Request{Method: http.MethodGet, Path: "/api/world/governance/proposals?limit=100"})
		mine := 0
		for _, x := range r.Body["proposals"].([]any) {
			if x.(map[string]any)["proposed_by"] == a.ID {
				mine++
			}
		}
		if mine != 3 {
			t.Fatalf("§7 replica %d lists %d of the citizen's proposals, want 3: %s", i, mine, r.Raw)
		}
	}
}
