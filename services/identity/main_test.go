package identity_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/identity"
)

func TestMain(m *testing.M) { testkit.Main(m) }

type world struct {
	kit      *testkit.Kit
	app      *fiber.App
	svc      *identity.Service
	verifier *auth.Verifier
}

func newWorld(t testing.TB) *world { t.Helper(); return newLimitedWorld(t, testkit.Unlimited()) }

// newLimitedWorld runs identity with the rate limits of settings over the
// defaults (WORLD_RATE_LIMITS).
func newLimitedWorld(t testing.TB, settings map[string]string) *world {
	t.Helper()
	kit := testkit.New(t)
	ctx := kit.Ctx()
	deps := kit.Deps(nil)
	kit.SetLimits(&deps, settings)
	dev, err := identity.OpenDevProvider(ctx, deps.DB, "emb")
	if err != nil {
		t.Fatal(err)
	}
	v := auth.NewVerifier(auth.VerifierOptions{Provider: auth.Providers{kit.Provider, dev}, Prefix: "emb", Logger: kit.Logger})
	v.Start(ctx)
	deps.Auth = &auth.Middleware{Verifier: v, Replay: auth.NewReplayCache(), Limits: deps.Limits.Limiter}
	deps.Citizens = nil
	svc, err := identity.New(ctx, deps, identity.Options{DevProvider: dev})
	if err != nil {
		t.Fatal(err)
	}
	deps.Auth.Seen = svc.Seen
	kit.Run(svc)
	return &world{kit: kit, app: kit.App(svc), svc: svc, verifier: v}
}

func (w *world) do(t *testing.T, method, path string, body any, headers map[string]string) testkit.Response {
	t.Helper()
	return testkit.Do(t, w.app, testkit.Request{Method: method, Path: path, Body: body, Headers: headers})
}

func (w *world) register(t *testing.T, a testkit.Agent, body map[string]any) testkit.Response {
	t.Helper()
	if body == nil {
		body = map[string]any{}
	}
	return w.do(t, http.MethodPost, "/api/world/register", body, a.Headers())
}

func str(v any) string { return fmt.Sprint(v) }

// testAgentFrom wraps credential headers as a testkit agent.
func testAgentFrom(h map[string]string) testkit.Agent {
	return testkit.Agent{ID: h["X-Agent-Id"], Cert: []byte(h["X-Agent-Certificate"])}
}
