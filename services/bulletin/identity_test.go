package bulletin_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/bulletin"
	"sharedworld.dev/services/identity"
)

// withIdentity runs the identity service beside the bulletin, on its own
// database and the same Kafka, as the local runner does.
func (w *world) withIdentity(t testing.TB) *fiber.App {
	t.Helper()
	deps := w.kit.Deps(nil)
	deps.DB = mongox.NewDB(w.kit.Client.Database(w.deps.DB.Name()+"_identity"), testkit.Mode())
	t.Cleanup(func() { _ = deps.DB.Drop(context.Background()) })
	deps.Citizens = nil
	svc, err := identity.New(w.kit.Ctx(), deps, identity.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.kit.Run(svc)
	return w.kit.App(svc)
}

// TestRegistrationReachesTheBulletinWithinASecond registers a citizen
// through identity's HTTP API and waits for the bulletin to show it: the
// write's event goes through identity's outbox, Kafka and the aggregator
// (CONTRACT §6: within 1 s).
func TestRegistrationReachesTheBulletinWithinASecond(t *testing.T) {
	w := newWorld(t, bulletin.Options{})
	identityApp := w.withIdentity(t)
	grace := w.kit.NewAgent("Grace", nil)

	r := testkit.Do(t, identityApp, testkit.Request{Method: http.MethodPost, Path: "/api/world/register",
		Body: map[string]any{"name": "Grace Hopper"}, Headers: grace.Headers()})
	r.ExpectStatus(t, 201)
	accepted := time.Now()
	testkit.Eventually(t, time.Second, "the registration on the bulletin within 1 s", func() bool {
		rc := w.bulletinDoc(t)["community"].(map[string]any)["recent_citizens"].([]any)
		return len(rc) == 1 && rc[0].(map[string]any)["agent_id"] == grace.ID && rc[0].(map[string]any)["name"] == "Grace Hopper"
	})
	t.Logf("registration visible on the bulletin %v after it was accepted", time.Since(accepted))
	doc := w.bulletinDoc(t)
	if doc["world"].(map[string]any)["population"] != 1.0 {
		t.Fatalf("population: %s", jsonOf(t, doc["world"]))
	}
	if lines := feedLines(doc); len(lines) != 1 || lines[0][len(lines[0])-len("Grace Hopper  registered"):] != "Grace Hopper  registered" {
		t.Fatalf("feed: %q", lines)
	}
}
