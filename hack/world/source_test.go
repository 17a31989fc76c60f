//go:build !cluster

// The local runner only: it names the source header the runner trusts; in
// the chart's world the Ingress controller sets X-Real-IP itself and
// overwrites what a client sent.

package world_test

import (
	"testing"
	"time"

	"sharedworld.dev/hack/world"
)

// Behind a proxy the runner counts registrations per the source address
// the proxy names (WORLD_CLIENT_IP_HEADER), not per the proxy's address.
func TestRegistrationsCountPerNamedSource(t *testing.T) {
	w := start(t, world.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), AmbassadorToken: "source-token-0123456789",
		ClientIPHeader: "X-Forwarded-For", RateLimits: map[string]string{"register_source": "1/1h"}})
	defer w.Stop(20 * time.Second)
	c := client{t, w.URL}
	for i, src := range []string{"198.51.100.1", "198.51.100.2"} {
		h := devAgent(t, c, "Src")
		h["X-Forwarded-For"] = src
		if status, body := c.do("POST", "/api/world/register", map[string]any{"name": "Src" + src}, h); status != 201 {
			t.Fatalf("registration %d from its own source: %d %v", i, status, body)
		}
	}
	h := devAgent(t, c, "Again")
	h["X-Forwarded-For"] = "198.51.100.1"
	if status, body := c.do("POST", "/api/world/register", map[string]any{"name": "Again"}, h); status != 429 {
		t.Fatalf("a second registration from one source: %d %v, want 429", status, body)
	}
}

// A restart starts no count over: the budget a source spent before the
// runner stopped is still spent after it starts again (on every backend).
func TestRateLimitCountsSurviveARestart(t *testing.T) {
	cfg := world.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), AmbassadorToken: "source-token-0123456789",
		ClientIPHeader: "X-Forwarded-For", RateLimits: map[string]string{"register_source": "1/1h"}}
	w := start(t, cfg)
	c := client{t, w.URL}
	register := func(name string) (int, map[string]any) {
		h := devAgent(t, c, name)
		h["X-Forwarded-For"] = "198.51.100.7"
		return c.do("POST", "/api/world/register", map[string]any{"name": name}, h)
	}
	if status, body := register("Before"); status != 201 {
		t.Fatalf("the source's one registration: %d %v", status, body)
	}
	if err := w.Stop(20 * time.Second); err != nil {
		t.Fatal(err)
	}
	w = start(t, cfg)
	defer w.Stop(20 * time.Second)
	c = client{t, w.URL}
	if status, body := register("After"); status != 429 {
		t.Fatalf("after a restart the source's spent budget: %d %v, want 429", status, body)
	}
}
