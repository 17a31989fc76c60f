package plotsstorage_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/pkg/testkit"
	plotsstorage "sharedworld.dev/services/plots-storage"
)

// replicaApps starts n more plots-storage replicas, each on a database
// handle of its own (its own locks, as another process has;
// testkit.ReplicaDB).
func (w *world) replicaApps(t *testing.T, n int) []*fiber.App {
	t.Helper()
	return w.kit.ReplicaApps(w.clock, n, func(ctx context.Context, deps platform.Deps) (platform.Service, error) {
		return plotsstorage.New(ctx, deps, plotsstorage.Options{Seal: cheapSeal})
	})
}

// §4's one plot per citizen and one citizen per cell hold across replicas:
// one citizen claims ten cells at once over two replicas, and two citizens
// claim one cell at once over two replicas; one claim wins each race.
func TestClaimsAcrossReplicas(t *testing.T) {
	w := newWorld(t)
	apps := w.replicaApps(t, 2)
	race := func(n int, claim func(i int) (app *fiber.App, body map[string]any, h map[string]string)) int {
		statuses := make([]int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				app, body, h := claim(i)
				statuses[i] = testkit.Do(t, app, testkit.Request{Method: http.MethodPost, Path: "/api/world/plots/claim", Body: body, Headers: h}).Status
			}()
		}
		wg.Wait()
		won := 0
		for _, s := range statuses {
			if s == 201 {
				won++
			} else if s != 409 {
				t.Fatalf("§4 claim answered %d", s)
			}
		}
		return won
	}
	ada := w.citizen("Ada")
	if won := race(10, func(i int) (*fiber.App, map[string]any, map[string]string) {
		return apps[i%2], map[string]any{"x": 20 + i, "y": 3}, ada.Headers()
	}); won != 1 {
		t.Fatalf("§4 one plot per citizen across replicas: %d claims won", won)
	}
	claimants := []testkit.Agent{w.citizen("Bob"), w.citizen("Cy"), w.citizen("Di"), w.citizen("Ed")}
	if won := race(len(claimants), func(i int) (*fiber.App, map[string]any, map[string]string) {
		return apps[i%2], map[string]any{"x": 40, "y": 40}, claimants[i].Headers()
	}); won != 1 {
		t.Fatalf("§4 one citizen per cell across replicas: %d claims won", won)
	}
}
