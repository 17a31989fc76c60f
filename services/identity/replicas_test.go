package identity_test

import (
	"net/http"
	"sort"
	"sync"
	"testing"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/identity"
)

// replicaApps runs n identity replicas beside w's, each on a database
// handle of its own (its own locks and memory, as another process has).
func (w *world) replicaApps(t *testing.T, n int) []*fiber.App {
	t.Helper()
	var apps []*fiber.App
	for range n {
		ctx := w.kit.Ctx()
		deps := w.kit.Deps(nil)
		w.kit.SetLimits(&deps, testkit.Unlimited())
		deps.DB = w.kit.ReplicaDB()
		dev, err := identity.OpenDevProvider(ctx, deps.DB, "emb")
		if err != nil {
			t.Fatal(err)
		}
		v := auth.NewVerifier(auth.VerifierOptions{Provider: auth.Providers{w.kit.Provider, dev}, Prefix: "emb", Logger: w.kit.Logger})
		v.Start(ctx)
		deps.Auth = &auth.Middleware{Verifier: v, Replay: auth.NewReplayCache(), Limits: deps.Limits.Limiter}
		deps.Citizens = nil
		svc, err := identity.New(ctx, deps, identity.Options{DevProvider: dev})
		if err != nil {
			t.Fatal(err)
		}
		deps.Auth.Seen = svc.Seen
		w.kit.Run(svc)
		apps = append(apps, w.kit.App(svc))
	}
	return apps
}

// One registration per agent and citizen numbers without gaps or repeats
// hold across replicas: one agent registers ten times at once over two
// replicas (one 201, nine already_registered), and thirty agents register
// at once over the two (numbers 2..31, each once).
func TestRegistrationsAcrossReplicas(t *testing.T) {
	w := newWorld(t)
	apps := w.replicaApps(t, 2)
	register := func(app *fiber.App, a testkit.Agent) testkit.Response {
		return testkit.Do(t, app, testkit.Request{Method: http.MethodPost, Path: "/api/world/register", Body: map[string]any{}, Headers: a.Headers()})
	}

	same := w.kit.NewAgent("Same", nil)
	statuses := make([]int, 10)
	var wg sync.WaitGroup
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := register(apps[i%2], same)
			statuses[i] = r.Status
			if r.Status == 409 && r.Body["error"] != "already_registered" {
				t.Errorf("409 with code %v", r.Body["error"])
			}
		}()
	}
	wg.Wait()
	created := 0
	for _, s := range statuses {
		switch s {
		case 201:
			created++
		case 409:
		default:
			t.Fatalf("a registration answered %d", s)
		}
	}
	if created != 1 {
		t.Fatalf("one agent registered %d times across replicas: %v", created, statuses)
	}

	const n = 30
	numbers := make([]int, n)
	for i := range numbers {
		a := w.kit.NewAgent("Many", nil)
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := register(apps[i%2], a)
			if r.Status != 201 {
				t.Errorf("registration %d: %d %s", i, r.Status, r.Raw)
				return
			}
			numbers[i] = int(r.Body["citizen"].(map[string]any)["citizen_number"].(float64))
		}()
	}
	wg.Wait()
	sort.Ints(numbers)
	for i, got := range numbers {
		if got != i+2 {
			t.Fatalf("citizen numbers across replicas are not 2..%d without gaps or repeats: %v", n+1, numbers)
		}
	}
}
