package platform_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"sharedworld.dev/pkg/config"
	"sharedworld.dev/pkg/metrics"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/pkg/testkit"
)

// Probes and scrapes on the admin port are not traffic of a service: no
// "<name>-admin" series appears in the RED metrics, while the same paths on
// the public port are counted under the service's own name.
func TestAdminPortIsNotCountedAsAService(t *testing.T) {
	kit := testkit.New(t)
	ask := &asker{ran: make(chan struct{})}
	unit := platform.Unit{Name: "probed", Build: func(_ context.Context, env platform.Env) (platform.Service, error) {
		ask.deps = env.Deps
		return ask, nil
	}}
	cfg := config.Common{Addr: "127.0.0.1:0", AdminAddr: "127.0.0.1:0", AgentIDPrefix: "emb", RevocationRefreshSec: 30,
		IdentityURL: "http://127.0.0.1:1", ProviderKeys: map[string]string{kit.Issuer.Kid: kit.Issuer.PublicKey()}}
	h, err := platform.New(kit.Ctx(), platform.Options{Config: cfg, Backend: backend(t, kit), Logger: kit.Logger}, unit)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(kit.Ctx()); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = h.Stop(10 * time.Second) }()
	// the service's name is its Name(), asker's
	public := metrics.HTTPRequests.WithLabelValues("asker", "GET", "/healthz", "200")
	before := testutil.ToFloat64(public)
	for _, p := range []string{"/healthz", "/readyz", "/metrics", "/healthz"} {
		if s, _ := get(t, h.AdminURL()+p, nil); s != http.StatusOK {
			t.Fatalf("%s on the admin port: %d", p, s)
		}
	}
	if s, _ := get(t, h.URL()+"/healthz", nil); s != http.StatusOK {
		t.Fatalf("/healthz on the public port: %d", s)
	}
	if n := testutil.ToFloat64(public) - before; n != 1 {
		t.Errorf("the public port's /healthz must be counted once under the service's name, got %v", n)
	}
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if !strings.HasPrefix(f.GetName(), "sharedworld_http_") {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "service" && strings.HasSuffix(l.GetValue(), "-admin") {
					t.Errorf("%s has a series for service %q", f.GetName(), l.GetValue())
				}
			}
		}
	}
}
