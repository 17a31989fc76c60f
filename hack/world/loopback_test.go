//go:build !cluster

package world_test

import (
	"fmt"
	"testing"
	"time"

	"sharedworld.dev/hack/world"
)

// The local runner does not count registrations per source for clients on
// its own machine (a person simulating many agents there); a source a
// proxy names is counted as anywhere else (TestRegistrationsCountPerNamedSource).
func TestRunnerLetsLoopbackClientsRegisterMany(t *testing.T) {
	w := start(t, world.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), AmbassadorToken: "source-token-0123456789",
		RateLimits: map[string]string{"register_source": "1/1h"}})
	defer w.Stop(20 * time.Second)
	c := client{t, w.URL}
	for i := range 3 {
		name := fmt.Sprintf("Local%d", i)
		if status, body := c.do("POST", "/api/world/register", map[string]any{"name": name}, devAgent(t, c, name)); status != 201 {
			t.Fatalf("registration %d from this machine: %d %v", i, status, body)
		}
	}
}
