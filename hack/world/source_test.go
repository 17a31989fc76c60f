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
