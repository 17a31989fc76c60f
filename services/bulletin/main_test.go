package bulletin_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/bulletin"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// world is one bulletin under test on its own database and Kafka.
type world struct {
	kit  *testkit.Kit
	deps platform.Deps
	svc  *bulletin.Service
	app  *fiber.App
	stop context.CancelFunc
}

func newWorld(t *testing.T, opts bulletin.Options) *world {
	t.Helper()
	kit := testkit.New(t)
	w := &world{kit: kit, deps: kit.Deps(nil)}
	w.start(t, opts)
	return w
}

// start builds the service on the world's database and runs it.
func (w *world) start(t *testing.T, opts bulletin.Options) {
	t.Helper()
	w.build(t, opts)
	w.run(t)
}

// build builds the service (loading its stored projections) without
// running it.
func (w *world) build(t *testing.T, opts bulletin.Options) {
	t.Helper()
	svc, err := bulletin.New(w.kit.Ctx(), w.deps, opts)
	if err != nil {
		t.Fatal(err)
	}
	w.svc, w.app = svc, w.kit.App(svc)
}

// run runs the built service until stop (or the end of the test).
func (w *world) run(t *testing.T) {
	t.Helper()
	svc := w.svc
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = svc.Run(ctx); close(done) }()
	stopped := false
	w.stop = func() {
		if !stopped {
			stopped = true
			cancel()
			<-done
		}
	}
	t.Cleanup(w.stop)
}

func (w *world) do(t *testing.T, method, path string, body any, headers map[string]string) testkit.Response {
	t.Helper()
	return testkit.Do(t, w.app, testkit.Request{Method: method, Path: path, Body: body, Headers: headers})
}

var ambassador = map[string]string{"Authorization": "Bearer " + testkit.AmbassadorToken}

// bulletinDoc fetches and decodes the bulletin document.
func (w *world) bulletinDoc(t *testing.T) map[string]any {
	t.Helper()
	r := w.do(t, http.MethodGet, "/api/world/bulletin", nil, nil)
	r.ExpectStatus(t, 200)
	return r.Body
}

// waitHandled waits until the aggregator has applied n events in total.
func (w *world) waitHandled(t *testing.T, n int64) {
	t.Helper()
	w.waitHandledWithin(t, n, 10*time.Second)
}

func (w *world) waitHandledWithin(t *testing.T, n int64, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for w.svc.Handled() < n {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %d events applied (have %d)", within, n, w.svc.Handled())
		}
		time.Sleep(10 * time.Millisecond) // polling, with the deadline above
	}
}

// waitRendered waits until the served bulletin satisfies cond.
func (w *world) waitRendered(t *testing.T, what string, cond func(doc map[string]any) bool) map[string]any {
	t.Helper()
	var doc map[string]any
	testkit.Eventually(t, 10*time.Second, what, func() bool {
		doc = w.bulletinDoc(t)
		return cond(doc)
	})
	return doc
}

// ev builds a catalog event for subject at a time.
func ev(subject string, msg proto.Message, at time.Time) events.Event {
	return events.MustNew("/services/test", subject, msg, at)
}

func pb(t time.Time) *timestamppb.Timestamp { return timestamppb.New(t) }

// feedLines returns the `line` of every feed item of a document.
func feedLines(doc map[string]any) []string {
	var out []string
	for _, it := range doc["feed"].([]any) {
		out = append(out, it.(map[string]any)["line"].(string))
	}
	return out
}

// jsonOf re-encodes part of a decoded document, for exact comparisons.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// agent makes a well-formed agent id that starts and ends with a 4-hex tag.
func agent(tag string) string {
	return "emb_" + tag + strings.Repeat("0", 16) + tag
}

func abbr(id string) string {
	hex := id[len("emb_"):]
	return hex[:4] + "…" + hex[20:]
}
