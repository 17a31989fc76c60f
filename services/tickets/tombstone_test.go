package tickets_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/identity"
	plotsstorage "sharedworld.dev/services/plots-storage"
	"sharedworld.dev/services/tickets"
)

// town is identity beside the services that admit citizens, each on its
// own database and the same Kafka, asking identity in process for agents
// (read-your-writes) as a host of all of them does.
type town struct {
	kit                   *testkit.Kit
	identity              *identity.Service
	ident, tickets, plots *fiber.App
}

// newTown builds the town; identity's outbox is published only when
// publish is set, so without it the others learn of citizens from their
// lookups alone.
func newTown(t *testing.T, publish bool) *town {
	t.Helper()
	kit := testkit.New(t)
	ctx := kit.Ctx()
	depsOn := func(suffix string) platform.Deps {
		deps := kit.Deps(nil)
		if suffix != "" {
			deps.DB = mongox.NewDB(kit.Client.Database(kit.DB.Name()+suffix), testkit.Mode())
			t.Cleanup(func() { _ = deps.DB.Drop(context.Background()) })
		}
		return deps
	}
	ideps := depsOn("_identity")
	ideps.Citizens = nil
	id, err := identity.New(ctx, ideps, identity.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if publish {
		kit.Run(id)
	}
	tdeps := depsOn("")
	tdeps.Citizens = id.Citizens()
	tk, err := tickets.New(ctx, tdeps, tickets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	kit.Run(tk)
	pdeps := depsOn("_plots")
	pdeps.Citizens = id.Citizens()
	ps, err := plotsstorage.New(ctx, pdeps, plotsstorage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	kit.Run(ps)
	return &town{kit: kit, identity: id, ident: kit.App(id), tickets: kit.App(tk), plots: kit.App(ps)}
}

func call(t *testing.T, app *fiber.App, method, path string, body any, headers map[string]string) testkit.Response {
	t.Helper()
	return testkit.Do(t, app, testkit.Request{Method: method, Path: path, Body: body, Headers: headers})
}

// TestATombstonedCitizenIsRefusedEverywhereWithinASecond: a citizen who has
// acted in every service (so each holds it as living) is tombstoned; within
// a second every route that admits citizens answers 403 permission_denied,
// whether the service learns it from citizen.tombstoned or, when no event
// comes, from its lookup at identity.
func TestATombstonedCitizenIsRefusedEverywhereWithinASecond(t *testing.T) {
	for _, tc := range []struct {
		name    string
		publish bool
	}{{"lookup only", false}, {"with events", true}} {
		t.Run(tc.name, func(t *testing.T) {
			w := newTown(t, tc.publish)
			ada := w.kit.NewAgent("Ada", nil)
			h := ada.Headers()
			call(t, w.ident, http.MethodPost, "/api/world/register", map[string]any{"name": "Ada"}, h).ExpectStatus(t, 201)
			call(t, w.tickets, http.MethodPost, "/api/world/tickets", map[string]any{"category": "bug", "title": "t", "description": "d"}, h).ExpectStatus(t, 201)
			r := call(t, w.plots, http.MethodPost, "/api/world/plots/claim", map[string]any{"x": 3, "y": 4}, h)
			r.ExpectStatus(t, 201)
			plot := r.Body["plot"].(map[string]any)["plot_id"].(string)
			call(t, w.plots, http.MethodPost, "/api/world/storage/write", map[string]any{"plot_id": plot, "path": "/a.md", "content": "aGk="}, h).ExpectStatus(t, 201)
			call(t, w.ident, http.MethodPut, "/api/world/profile", map[string]any{"bio": "here"}, h).ExpectStatus(t, 200)

			call(t, w.ident, http.MethodPost, "/api/admin/citizens/"+ada.ID+"/tombstone", nil,
				map[string]string{"Authorization": "Bearer " + testkit.AmbassadorToken}).ExpectStatus(t, 200)
			deadline := time.Now().Add(time.Second)

			// Each route admits before it reads the body, so an empty body
			// is 400 while the citizen is still admitted: no side effects.
			routes := []struct {
				app          *fiber.App
				method, path string
			}{
				{w.tickets, http.MethodPost, "/api/world/tickets"},
				{w.tickets, http.MethodPost, "/api/world/tickets/tkt_00000000/upvote"},
				{w.plots, http.MethodPost, "/api/world/plots/claim"},
				{w.plots, http.MethodPost, "/api/world/plots/abandon"},
				{w.plots, http.MethodPost, "/api/world/storage/write"},
				{w.plots, http.MethodPost, "/api/world/storage/read"},
				{w.plots, http.MethodGet, "/api/world/storage/list?plot_id=" + plot},
				{w.plots, http.MethodPost, "/api/world/storage/delete"},
				{w.plots, http.MethodPut, "/api/world/plots/" + plot + "/permissions"},
				{w.plots, http.MethodPost, "/api/world/continuity/backup"},
				{w.plots, http.MethodGet, "/api/world/continuity/list"},
				{w.ident, http.MethodPut, "/api/world/profile"},
				{w.ident, http.MethodGet, "/api/world/profile"},
				{w.ident, http.MethodGet, "/api/world/whoami"},
			}
			for _, rt := range routes {
				var last testkit.Response
				testkit.Eventually(t, time.Until(deadline), rt.method+" "+rt.path+" refused", func() bool {
					last = call(t, rt.app, rt.method, rt.path, map[string]any{}, h)
					return last.Status == 403
				})
				last.ExpectError(t, 403, "permission_denied")
			}
			if tc.publish { // plots-storage hears citizen.tombstoned and releases the plot
				testkit.Eventually(t, 10*time.Second, "the tombstoned citizen's plot released", func() bool {
					return call(t, w.plots, http.MethodGet, "/api/world/plots/"+plot, nil, nil).Status == 404
				})
			}
		})
	}
}
