package platform_test

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/config"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/pkg/testkit"
)

// slow answers /quick at once and /slow once the test releases it.
type slow struct {
	entered chan struct{}
	release chan struct{}
	drained chan struct{}
}

func (s *slow) Name() string                  { return "slow" }
func (s *slow) BodyLimits() map[string]int    { return nil }
func (s *slow) Run(ctx context.Context) error { <-ctx.Done(); return nil }
func (s *slow) Drain()                        { close(s.drained) }
func (s *slow) Routes(r fiber.Router) {
	r.Get("/quick", func(c *fiber.Ctx) error { return c.SendString("quick") })
	r.Get("/slow", func(c *fiber.Ctx) error {
		close(s.entered)
		<-s.release
		return c.SendString("slow")
	})
}

func ready(t *testing.T, base string) (int, map[string]any) {
	t.Helper()
	return get(t, base+"/readyz", nil)
}

const quick = "GET /quick HTTP/1.1\r\nHost: world\r\n\r\n"

// A host told to stop first drains: /readyz answers 503 on both ports at
// once while every request is still answered, each with Connection: close
// (a keep-alive connection then ends after its answer); then it stops
// taking connections, closes the idle ones, finishes the request in flight
// with Connection: close, and only then returns from Stop. Live streams
// end when the stop begins, not during the delay.
func TestHostDrainsBeforeItStops(t *testing.T) {
	kit := testkit.New(t)
	svc := &slow{entered: make(chan struct{}), release: make(chan struct{}), drained: make(chan struct{})}
	unit := platform.Unit{Name: "slow", Build: func(context.Context, platform.Env) (platform.Service, error) { return svc, nil }}
	cfg := config.Common{Addr: "127.0.0.1:0", AdminAddr: "127.0.0.1:0", AgentIDPrefix: "emb", RevocationRefreshSec: 30,
		IdentityURL: "http://127.0.0.1:1", ProviderKeys: map[string]string{kit.Issuer.Kid: kit.Issuer.PublicKey()}}
	h, err := platform.New(kit.Ctx(), platform.Options{Config: cfg, Backend: backend(t, kit), Logger: kit.Logger}, unit)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(kit.Ctx()); err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimPrefix(h.URL(), "http://")
	for _, base := range []string{h.URL(), h.AdminURL()} {
		if s, body := ready(t, base); s != http.StatusOK {
			t.Fatalf("%s/readyz before the drain: %d %v", base, s, body)
		}
	}
	kept := testkit.Dial(t, addr) // a client's pooled connection
	kept.Send(quick)
	if resp, _ := kept.Read("GET"); resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("before the drain a connection is kept alive: %d close=%v", resp.StatusCode, resp.Close)
	}
	idle := testkit.Dial(t, addr) // used once, then idle until the stop
	idle.Send(quick)
	idle.Read("GET")
	unused := testkit.Dial(t, addr) // opened, never asked anything

	endDelay, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopped := make(chan error, 1)
	go func() {
		h.Drain(endDelay, time.Minute)
		stopped <- h.Stop(10 * time.Second)
	}()

	for _, base := range []string{h.URL(), h.AdminURL()} {
		testkit.Eventually(t, 5*time.Second, base+"/readyz answers 503 once draining", func() bool {
			s, _ := ready(t, base)
			return s == http.StatusServiceUnavailable
		})
		if _, body := ready(t, base); !strings.Contains(toString(body["failed"]), "draining") {
			t.Errorf("%s/readyz must name the draining check: %v", base, body)
		}
	}
	// Still serving during the delay, every answer the last of its connection.
	client := &http.Client{Transport: &http.Transport{}}
	resp, err := client.Get(h.URL() + "/quick")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !resp.Close {
		t.Fatalf("a request during the delay: %d close=%v; want 200 with Connection: close", resp.StatusCode, resp.Close)
	}
	kept.Send(quick)
	if resp, _ := kept.Read("GET"); resp.StatusCode != http.StatusOK || !resp.Close {
		t.Fatalf("a kept-alive connection during the delay: %d close=%v; want 200 with Connection: close", resp.StatusCode, resp.Close)
	}
	if !kept.Closed(5 * time.Second) {
		t.Fatal("the server must close a connection after an answer with Connection: close")
	}
	select {
	case <-svc.drained:
		t.Fatal("live streams must last through the delay")
	default:
	}

	inFlight := testkit.Dial(t, addr)
	inFlight.Send("GET /slow HTTP/1.1\r\nHost: world\r\n\r\n")
	<-svc.entered
	cancel() // the delay is over: the stop begins
	testkit.Eventually(t, 5*time.Second, "no new connection taken once the stop began", func() bool {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return true
		}
		_ = c.Close()
		return false
	})
	<-svc.drained
	if !idle.Closed(5*time.Second) || !unused.Closed(5*time.Second) {
		t.Fatal("idle connections must be closed by the stop")
	}
	select {
	case err := <-stopped:
		t.Fatalf("Stop returned with a request in flight: %v", err)
	default:
	}
	close(svc.release)
	resp, body := inFlight.Read("GET")
	if resp.StatusCode != http.StatusOK || string(body) != "slow" || !resp.Close {
		t.Fatalf("the request in flight at the stop: %d %q close=%v; want 200 slow with Connection: close", resp.StatusCode, body, resp.Close)
	}
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatalf("Stop: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Stop did not return once the last request finished")
	}
}

func toString(v any) string {
	if m, ok := v.(map[string]any); ok {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		return strings.Join(keys, ",")
	}
	return ""
}
