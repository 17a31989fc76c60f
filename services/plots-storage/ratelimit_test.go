package plotsstorage_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/ratelimit"
	"sharedworld.dev/pkg/testkit"
	plotsstorage "sharedworld.dev/services/plots-storage"
)

// newLimitedWorld is newWorld with the rate limits of settings over the
// defaults (WORLD_RATE_LIMITS).
func newLimitedWorld(t *testing.T, settings map[string]string) *world {
	t.Helper()
	kit := testkit.New(t)
	clk := clock.NewFixed(time.Date(2026, 11, 22, 9, 15, 3, 127e6, time.UTC))
	deps := kit.Deps(clk)
	kit.SetLimits(&deps, settings)
	svc, err := plotsstorage.New(kit.Ctx(), deps, plotsstorage.Options{Seal: cheapSeal})
	if err != nil {
		t.Fatal(err)
	}
	kit.Run(svc)
	return &world{kit: kit, app: kit.App(svc), svc: svc, clock: clk, deps: deps}
}

func expectRateLimited(t *testing.T, r testkit.Response, what string) {
	t.Helper()
	r.ExpectError(t, 429, "rate_limited")
	if r.Header["Retry-After"] == "" || !strings.Contains(r.Body["hint"].(string), "Wait "+r.Header["Retry-After"]+" s") ||
		!strings.Contains(r.Body["message"].(string), what) {
		t.Fatalf("want the %s limit with its wait: %v %s", what, r.Header, r.Raw)
	}
}

// Storage writes and deletes share a per-citizen budget; reads do not count.
func TestStorageWritesAreRateLimited(t *testing.T) {
	w := newLimitedWorld(t, map[string]string{ratelimit.StorageWrites: "3/1h"})
	ada, bob := w.citizen("Ada"), w.citizen("Bob")
	id := w.claim(t, ada, 2, 2)
	w.write(t, ada, id, "/a.md", []byte("a")).ExpectStatus(t, 201)
	w.write(t, ada, id, "/b.md", []byte("b")).ExpectStatus(t, 201)
	w.do(t, http.MethodPost, "/api/world/storage/delete", map[string]any{"plot_id": id, "path": "/a.md"}, ada.Headers()).ExpectStatus(t, 200)
	w.read(t, ada.Headers(), id, "/b.md").ExpectStatus(t, 200)
	expectRateLimited(t, w.write(t, ada, id, "/c.md", []byte("c")), "storage writes")
	expectRateLimited(t, w.do(t, http.MethodPost, "/api/world/storage/delete", map[string]any{"plot_id": id, "path": "/b.md"}, ada.Headers()), "storage writes")
	// The refused write wrote nothing.
	w.read(t, ada.Headers(), id, "/c.md").ExpectError(t, 404, "not_found")
	// Another citizen has a budget of its own.
	w.write(t, bob, w.claim(t, bob, 3, 3), "/a.md", []byte("a")).ExpectStatus(t, 201)
}

// Garden plantings have a budget of their own, below the storage one.
func TestGardenPlantingsAreRateLimited(t *testing.T) {
	w := newLimitedWorld(t, map[string]string{ratelimit.GardenPlantings: "2/1h"})
	ada := w.citizen("Ada")
	garden := "/garden/" + ada.Name + "/"
	w.write(t, ada, "plot_0_0", garden+"one.md", []byte("1")).ExpectStatus(t, 201)
	w.write(t, ada, "plot_0_0", garden+"two.md", []byte("2")).ExpectStatus(t, 201)
	expectRateLimited(t, w.write(t, ada, "plot_0_0", garden+"three.md", []byte("3")), "garden writes")
	// Her own plot is not the garden.
	w.write(t, ada, w.claim(t, ada, 2, 2), "/a.md", []byte("a")).ExpectStatus(t, 201)
}

// Every authenticated write counts against the citizen's writes budget,
// whatever the route.
func TestAuthenticatedWritesAreRateLimited(t *testing.T) {
	w := newLimitedWorld(t, map[string]string{ratelimit.Writes: "2/1h"})
	ada := w.citizen("Ada")
	id := w.claim(t, ada, 2, 2)
	w.write(t, ada, id, "/a.md", []byte("a")).ExpectStatus(t, 201)
	expectRateLimited(t, w.do(t, http.MethodPut, "/api/world/plots/"+id+"/permissions", map[string]any{"public_read": true}, ada.Headers()), "authenticated writes")
	w.do(t, http.MethodGet, "/api/world/plots/"+id+"/permissions", nil, ada.Headers()).ExpectStatus(t, 200)
}

// A budget holds in any window of its length, not per fixed window (the
// issue's 60 plantings in 43 s under 30 a minute): three plantings just
// before the clock's 4 s mark are not whole again just after it, only as
// each leaves the 4 s behind it, which Retry-After tells.
func TestGardenPlantingsHoldAcrossAWindowEdge(t *testing.T) {
	const window = 4 * time.Second
	w := newLimitedWorld(t, map[string]string{ratelimit.GardenPlantings: "3/4s"})
	ada, bob := w.citizen("Ada"), w.citizen("Bob")
	// Bob's planting warms the world up, out of Ada's timed stretch.
	w.write(t, bob, "plot_0_0", "/garden/"+bob.Name+"/warm.md", []byte("w")).ExpectStatus(t, 201)
	garden := "/garden/" + ada.Name + "/"
	edge := time.Now().Truncate(window).Add(window)
	if time.Until(edge) < time.Second {
		edge = edge.Add(window)
	}
	time.Sleep(time.Until(edge.Add(-time.Second))) // to a second before a fixed window would start over
	first := time.Now()
	for i := 0; i < 3; i++ {
		w.write(t, ada, "plot_0_0", garden+"p"+strconv.Itoa(i)+".md", []byte("p")).ExpectStatus(t, 201)
	}
	time.Sleep(time.Until(edge.Add(100 * time.Millisecond)))
	r := w.write(t, ada, "plot_0_0", garden+"after-edge.md", []byte("e"))
	if elapsed := time.Since(first); elapsed > window-500*time.Millisecond {
		t.Fatalf("the plantings took %v, too long to tell a sliding window from a fixed one", elapsed)
	}
	expectRateLimited(t, r, "garden writes")
	wait, err := strconv.Atoi(r.Header["Retry-After"])
	if err != nil || wait < 1 || wait > 4 {
		t.Fatalf("Retry-After %q: the oldest planting leaves the window within 4 s", r.Header["Retry-After"])
	}
	time.Sleep(time.Duration(wait) * time.Second) // as the agent is told to
	w.write(t, ada, "plot_0_0", garden+"after-wait.md", []byte("a")).ExpectStatus(t, 201)
}
