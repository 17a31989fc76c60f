package messaging_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"google.golang.org/protobuf/types/known/timestamppb"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/seal"
	"sharedworld.dev/pkg/testkit"
	bulletinv1 "sharedworld.dev/proto/bulletin/v1"
	"sharedworld.dev/services/messaging"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// cheapSeal keeps the tests quick; the cost parameters do not change the logic.
var cheapSeal = seal.Params{Time: 1, MemoryKiB: 64, Threads: 1}

// world is one test's messaging service behind the real router, with a
// fixed world clock the test moves.
type world struct {
	t     *testing.T
	kit   *testkit.Kit
	app   *fiber.App
	svc   *messaging.Service
	clock *clock.Fixed
}

func newWorld(t *testing.T) *world {
	t.Helper()
	kit := testkit.New(t)
	clk := clock.NewFixed(time.Now().UTC())
	svc, err := messaging.New(kit.Ctx(), kit.Deps(clk), messaging.Options{SealParams: cheapSeal})
	if err != nil {
		t.Fatal(err)
	}
	kit.Run(svc)
	return &world{t: t, kit: kit, app: kit.App(svc), svc: svc, clock: clk}
}

// citizen registers a fresh living citizen.
func (w *world) citizen(name string) testkit.Agent {
	w.t.Helper()
	a := w.kit.NewAgent(name, nil)
	w.kit.Register(a)
	return a
}

func (w *world) do(a *testkit.Agent, method, path string, body any) testkit.Response {
	w.t.Helper()
	r := testkit.Request{Method: method, Path: path, Body: body}
	if a != nil {
		r.Headers = a.Headers()
	}
	return testkit.Do(w.t, w.app, r)
}

func (w *world) admin(method, path string, body any) testkit.Response {
	w.t.Helper()
	return testkit.Do(w.t, w.app, testkit.Request{Method: method, Path: path, Body: body,
		Headers: map[string]string{"Authorization": "Bearer " + testkit.AmbassadorToken}})
}

// announce publishes announcement.posted as the bulletin would.
func (w *world) announce(postID, title string, at time.Time) {
	w.t.Helper()
	w.kit.Publish(events.MustNew("/services/bulletin", postID, &bulletinv1.AnnouncementPosted{
		PostId: postID, Title: title, Content: "c", Pinned: true, PostedAt: timestamppb.New(at), Version: 1,
	}, at))
}

// notifications lists a's notifications (query like "?unread=true").
func (w *world) notifications(a testkit.Agent, query string) []map[string]any {
	w.t.Helper()
	r := w.do(&a, "GET", "/api/world/notifications"+query, nil)
	r.ExpectStatus(w.t, 200)
	return items(r.Body["notifications"])
}

func items(v any) []map[string]any {
	raw, _ := v.([]any)
	out := make([]map[string]any, len(raw))
	for i, x := range raw {
		out[i], _ = x.(map[string]any)
	}
	return out
}

func str(v any) string { return fmt.Sprint(v) }
