package platform_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/citizens"
	"sharedworld.dev/pkg/config"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/pkg/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// asker looks citizens up through its Deps and requires authentication.
type asker struct {
	deps platform.Deps
	ran  chan struct{}
}

func (a *asker) Name() string               { return "asker" }
func (a *asker) BodyLimits() map[string]int { return nil }
func (a *asker) Run(ctx context.Context) error {
	close(a.ran)
	<-ctx.Done()
	return nil
}
func (a *asker) Routes(r fiber.Router) {
	r.Get("/ask/:id", func(c *fiber.Ctx) error {
		cit, found, err := a.deps.Citizens.Lookup(c.UserContext(), c.Params("id"))
		if err != nil {
			return err
		}
		return c.JSON(fiber.Map{"found": found, "name": cit.Name})
	})
	r.Get("/me", a.deps.Auth.Required(), func(c *fiber.Ctx) error { return c.SendStatus(204) })
	r.Post("/note", a.deps.Auth.Required(), func(c *fiber.Ctx) error { return c.SendStatus(204) })
}

// keeper keeps citizens and presence, as identity does.
type keeper struct {
	asker
	mu   sync.Mutex
	seen []string
}

func (k *keeper) Name() string        { return "keeper" }
func (k *keeper) Routes(fiber.Router) {}
func (k *keeper) Citizens() citizens.Source {
	return kept{}
}

type kept struct{}

func (kept) Lookup(_ context.Context, id string) (citizens.Citizen, bool, error) {
	return citizens.Citizen{AgentID: id, Name: "Kept"}, id == "emb_kept", nil
}
func (k *keeper) Seen(_ context.Context, agentID string, _ bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.seen = append(k.seen, agentID)
}

func backend(t *testing.T, kit *testkit.Kit) *platform.Backend {
	client, err := mongox.Connect(kit.Ctx(), testkit.MongoURI(t))
	if err != nil {
		t.Fatal(err)
	}
	db := kit.DB.Name()
	return &platform.Backend{Client: client, Mode: testkit.Mode(), Brokers: kit.Brokers, Database: func(string) string { return db }}
}

func get(t *testing.T, url string, headers map[string]string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// One host, two services: the one that keeps citizens and presence is found
// by its interfaces (and may be built after the one that asks); the
// providers a unit trusts reach the host's one verifier and its Build.
func TestHostWiresItsServicesInProcess(t *testing.T) {
	kit := testkit.New(t)
	ask, keep := &asker{ran: make(chan struct{})}, &keeper{asker: asker{ran: make(chan struct{})}}
	units := []platform.Unit{
		{Name: "asker", Build: func(_ context.Context, env platform.Env) (platform.Service, error) {
			ask.deps = env.Deps
			return ask, nil
		}},
		{Name: "keeper",
			Trust: func(context.Context, platform.Env) ([]auth.Provider, error) {
				return []auth.Provider{kit.Provider}, nil
			},
			Build: func(_ context.Context, env platform.Env) (platform.Service, error) {
				if len(env.Trusted) != 1 || env.Trusted[0] != kit.Provider {
					return nil, fmt.Errorf("Build did not get the providers Trust returned: %v", env.Trusted)
				}
				if env.Deps.Auth != ask.deps.Auth {
					return nil, fmt.Errorf("two services of one host got two auth middlewares")
				}
				return keep, nil
			}},
	}
	cfg := config.Common{Addr: "127.0.0.1:0", AgentIDPrefix: "emb", RevocationRefreshSec: 30, IdentityURL: "http://127.0.0.1:1"}
	h, err := platform.New(kit.Ctx(), platform.Options{Config: cfg, Backend: backend(t, kit), Logger: kit.Logger}, units...)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(kit.Ctx()); err != nil {
		t.Fatal(err)
	}
	if s, body := get(t, h.URL()+"/ask/emb_kept", nil); s != 200 || body["name"] != "Kept" {
		t.Fatalf("the lookup must answer in process from the keeper: %d %v", s, body)
	}
	agent := kit.NewAgent("Ada", nil)
	if s, body := get(t, h.URL()+"/me", agent.Headers()); s != 204 {
		t.Fatalf("the host's verifier must trust the provider a unit's Trust returned: %d %v", s, body)
	}
	keep.mu.Lock()
	seen := append([]string(nil), keep.seen...)
	keep.mu.Unlock()
	if len(seen) != 1 || seen[0] != agent.ID {
		t.Fatalf("presence must reach the keeper in process: %v", seen)
	}
	for _, p := range []string{"/healthz", "/readyz", "/metrics"} {
		if s, _ := get(t, h.URL()+p, nil); s != 200 {
			t.Errorf("%s on the public port without an admin address: %d", p, s)
		}
	}
	<-ask.ran
	<-keep.ran
	if err := h.Stop(10 * time.Second); err != nil {
		t.Fatal(err)
	}
}

// A host without the citizens' keeper asks identity over HTTP and reports
// presence there.
func TestHostAsksIdentityOverHTTPWithoutAKeeper(t *testing.T) {
	kit := testkit.New(t)
	var mu sync.Mutex
	var reported []string
	identity := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/internal/citizens/emb_remote":
			_, _ = w.Write([]byte(`{"ok":true,"citizen":{"agent_id":"emb_remote","name":"Remote"}}`))
		case "/internal/presence":
			var body struct {
				Sightings []citizens.Sighting `json:"sightings"`
			}
			_ = json.NewDecoder(r.Body).Decode(&body)
			mu.Lock()
			for _, s := range body.Sightings {
				reported = append(reported, s.AgentID)
			}
			mu.Unlock()
		default:
			http.NotFound(w, r)
		}
	}))
	defer identity.Close()
	ask := &asker{ran: make(chan struct{})}
	unit := platform.Unit{Name: "asker", Build: func(_ context.Context, env platform.Env) (platform.Service, error) {
		ask.deps = env.Deps
		return ask, nil
	}}
	cfg := config.Common{Addr: "127.0.0.1:0", AdminAddr: "127.0.0.1:0", AgentIDPrefix: "emb", RevocationRefreshSec: 30,
		IdentityURL: identity.URL, ProviderKeys: map[string]string{kit.Issuer.Kid: kit.Issuer.PublicKey()}}
	h, err := platform.New(kit.Ctx(), platform.Options{Config: cfg, Backend: backend(t, kit), Logger: kit.Logger}, unit)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(kit.Ctx()); err != nil {
		t.Fatal(err)
	}
	if s, body := get(t, h.URL()+"/ask/emb_remote", nil); s != 200 || body["name"] != "Remote" {
		t.Fatalf("the lookup must ask identity over HTTP: %d %v", s, body)
	}
	agent := kit.NewAgent("Ada", nil)
	if s, _ := get(t, h.URL()+"/me", agent.Headers()); s != 204 {
		t.Fatalf("configured provider keys must be trusted: %d", s)
	}
	if s, _ := get(t, h.URL()+"/metrics", nil); s != 404 {
		t.Errorf("with an admin address, metrics are not on the public port: %d", s)
	}
	testkit.Eventually(t, 5*time.Second, "sighting reported to identity", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(reported) == 1 && reported[0] == agent.ID
	})
	if err := h.Stop(10 * time.Second); err != nil {
		t.Fatal(err)
	}
}

// A unit that fails to build makes New return its error (and close the
// backend), not panic on the host it has not returned.
func TestNewReturnsABuildError(t *testing.T) {
	kit := testkit.New(t)
	closed := false
	b := backend(t, kit)
	b.Stop = func() { closed = true }
	unit := platform.Unit{Name: "broken", Build: func(context.Context, platform.Env) (platform.Service, error) {
		return nil, fmt.Errorf("cannot build")
	}}
	cfg := config.Common{Addr: "127.0.0.1:0", AgentIDPrefix: "emb", RevocationRefreshSec: 30, IdentityURL: "http://127.0.0.1:1"}
	h, err := platform.New(kit.Ctx(), platform.Options{Config: cfg, Backend: b, Logger: kit.Logger}, unit)
	if h != nil || err == nil || !strings.Contains(err.Error(), "cannot build") {
		t.Fatalf("New: %v, %v; want the unit's error", h, err)
	}
	if !closed {
		t.Fatal("New returned an error without closing the backend")
	}
}
