package tickets_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/tickets"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// start is the world time every test begins at: 09:00 UTC, 15 hours before
// the next UTC day.
var start = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

type world struct {
	kit   *testkit.Kit
	app   *fiber.App
	svc   *tickets.Service
	clock *clock.Fixed
}

func newWorld(t *testing.T) *world {
	t.Helper()
	kit := testkit.New(t)
	clk := clock.NewFixed(start)
	svc, err := tickets.New(kit.Ctx(), kit.Deps(clk), tickets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	kit.Run(svc)
	return &world{kit: kit, app: kit.App(svc), svc: svc, clock: clk}
}

// citizen makes a registered citizen.
func (w *world) citizen(name string) testkit.Agent {
	a := w.kit.NewAgent(name, nil)
	w.kit.Register(a)
	return a
}

func (w *world) do(t *testing.T, method, path string, body any, headers map[string]string) testkit.Response {
	t.Helper()
	return testkit.Do(t, w.app, testkit.Request{Method: method, Path: path, Body: body, Headers: headers})
}

// file files a valid ticket for a and returns its id.
func (w *world) file(t *testing.T, a testkit.Agent, category, title string) string {
	t.Helper()
	r := w.do(t, http.MethodPost, "/api/world/tickets", map[string]any{"category": category, "title": title, "description": "details of " + title}, a.Headers())
	r.ExpectStatus(t, 201)
	return r.Body["ticket"].(map[string]any)["ticket_id"].(string)
}

func (w *world) triage(t *testing.T, id string, body any) testkit.Response {
	t.Helper()
	return w.do(t, http.MethodPatch, "/api/admin/tickets/"+id, body, ambassador())
}

func ambassador() map[string]string {
	return map[string]string{"Authorization": "Bearer " + testkit.AmbassadorToken}
}

// advance moves world time forward.
func (w *world) advance(d time.Duration) { w.clock.Set(w.clock.Now().Add(d)) }
