package governance_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/governance"
	"sharedworld.dev/services/governance/internal/ballot"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// start is the world time every test begins at.
var start = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

type world struct {
	kit   *testkit.Kit
	app   *fiber.App
	svc   *governance.Service
	clock *clock.Fixed
	key   []byte
	n     int
}

func newWorld(t testing.TB, trigger int64) *world {
	t.Helper()
	kit := testkit.New(t)
	clk := clock.NewFixed(start)
	key := ballot.NewKey()
	svc, err := governance.New(kit.Ctx(), kit.Deps(clk), governance.Options{BallotKey: key, Trigger: trigger})
	if err != nil {
		t.Fatal(err)
	}
	kit.Run(svc)
	return &world{kit: kit, app: kit.App(svc), svc: svc, clock: clk, key: key}
}

// citizens registers n citizens and waits until the service counts them.
func (w *world) citizens(t testing.TB, n int) []testkit.Agent {
	t.Helper()
	out := make([]testkit.Agent, n)
	for i := range out {
		w.n++
		out[i] = w.kit.NewAgent(fmt.Sprintf("citizen-%d", w.n), nil)
		w.kit.RegisterAt(out[i], w.clock.Now())
	}
	want := int64(w.n)
	testkit.Eventually(t, 10*time.Second, "the directory counts every citizen", func() bool {
		got, err := w.kit.DB.Collection("citizens").CountDocuments(context.Background(), bson.M{})
		return err == nil && got >= want
	})
	return out
}

func (w *world) do(t testing.TB, method, path string, body any, headers map[string]string) testkit.Response {
	t.Helper()
	return testkit.Do(t, w.app, testkit.Request{Method: method, Path: path, Body: body, Headers: headers})
}

func ambassador() map[string]string {
	return map[string]string{"Authorization": "Bearer " + testkit.AmbassadorToken}
}

func (w *world) at(t time.Time) { w.clock.Set(t) }

// check runs the check over HTTP and returns its transitions.
func (w *world) check(t testing.TB) []map[string]any {
	t.Helper()
	r := w.do(t, http.MethodPost, "/api/admin/governance/check", nil, ambassador())
	r.ExpectStatus(t, 200)
	var out []map[string]any
	for _, x := range r.Body["transitions"].([]any) {
		out = append(out, x.(map[string]any))
	}
	return out
}

func (w *world) propose(t testing.TB, a testkit.Agent, typ string) map[string]any {
	t.Helper()
	r := w.do(t, http.MethodPost, "/api/world/governance/propose", map[string]any{"title": "Quiet garden", "body": "Hush.", "type": typ}, a.Headers())
	r.ExpectStatus(t, 201)
	return r.Body["proposal"].(map[string]any)
}

func (w *world) vote(t testing.TB, a testkit.Agent, id, choice string) testkit.Response {
	t.Helper()
	return w.do(t, http.MethodPost, "/api/world/governance/vote", map[string]any{"proposal_id": id, "vote": choice}, a.Headers())
}

func (w *world) proposal(t *testing.T, id string) map[string]any {
	t.Helper()
	r := w.do(t, http.MethodGet, "/api/world/governance/results/"+id, nil, nil)
	r.ExpectStatus(t, 200)
	return r.Body["proposal"].(map[string]any)
}

func ts(t *testing.T, v any) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339Nano, v.(string))
	if err != nil {
		t.Fatal(err)
	}
	return at
}
