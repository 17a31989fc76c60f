package tickets_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/tickets"
)

// replicaApps starts n more tickets replicas, each on a database handle of
// its own (its own locks, as another process has; testkit.ReplicaDB).
func (w *world) replicaApps(t *testing.T, n int) []*fiber.App {
	t.Helper()
	return w.kit.ReplicaApps(w.clock, n, func(ctx context.Context, deps platform.Deps) (platform.Service, error) {
		return tickets.New(ctx, deps, tickets.Options{})
	})
}

// §5's daily cap holds across replicas: 20 posts of one citizen at once,
// split over two replicas, store exactly 5 tickets.
func TestDailyLimitHoldsAcrossReplicas(t *testing.T) {
	w := newWorld(t)
	apps := w.replicaApps(t, 2)
	ada := w.citizen("Ada")
	const n = 20
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := testkit.Do(t, apps[i%2], testkit.Request{Method: http.MethodPost, Path: "/api/world/tickets",
				Body: map[string]any{"category": "bug", "title": "parallel", "description": "d"}, Headers: ada.Headers()})
			statuses[i] = r.Status
		}()
	}
	wg.Wait()
	count := map[int]int{}
	for _, s := range statuses {
		count[s]++
	}
	if count[201] != 5 || count[429] != n-5 {
		t.Fatalf("§5 %d posts over two replicas: %v, want exactly 5×201 and %d×429", n, count, n-5)
	}
}
