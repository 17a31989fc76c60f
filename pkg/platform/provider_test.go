package platform_test

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"sharedworld.dev/pkg/config"
	"sharedworld.dev/pkg/metrics"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/pkg/testkit"
)

// keysHost starts a host whose only provider is the key document at url.
func keysHost(t *testing.T, kit *testkit.Kit, url string) *platform.Host {
	t.Helper()
	ask := &asker{ran: make(chan struct{})}
	unit := platform.Unit{Name: "asker", Build: func(_ context.Context, env platform.Env) (platform.Service, error) {
		ask.deps = env.Deps
		return ask, nil
	}}
	cfg := config.Common{Addr: "127.0.0.1:0", AdminAddr: "127.0.0.1:0", AgentIDPrefix: "emb", RevocationRefreshSec: 30,
		IdentityURL: "http://127.0.0.1:1", ProviderKeysURL: url}
	h, err := platform.New(kit.Ctx(), platform.Options{Config: cfg, Backend: backend(t, kit), Logger: kit.Logger}, unit)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(kit.Ctx()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Stop(10 * time.Second) })
	return h
}

// providerFailure is the identity_provider entry of a 503 from /readyz.
func providerFailure(t *testing.T, base string) (int, string) {
	t.Helper()
	s, body := get(t, base+"/readyz", nil)
	failed, _ := body["failed"].(map[string]any)
	msg, _ := failed["identity_provider"].(string)
	return s, msg
}

func keyDocument(kit *testkit.Kit) []byte {
	doc, _ := json.Marshal(map[string]any{"keys": []map[string]string{{"kid": kit.Issuer.Kid, "public_key": kit.Issuer.PublicKey()}}})
	return doc
}

// A key URL whose certificate no root vouches for (as in an image without
// a CA bundle) leaves the host without a key: it refuses every certificate,
// so it must not be ready, and /readyz and the metrics say why.
func TestHostWithoutProviderKeysIsNotReady(t *testing.T) {
	kit := testkit.New(t)
	doc := keyDocument(kit)
	idp := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(doc) }))
	idp.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are the point
	idp.StartTLS()
	defer idp.Close()
	failures := metrics.ProviderRefreshFailures.WithLabelValues("keys")
	before := testutil.ToFloat64(failures)
	h := keysHost(t, kit, idp.URL+"/keys")
	for _, base := range []string{h.URL(), h.AdminURL()} {
		s, msg := providerFailure(t, base)
		if s != http.StatusServiceUnavailable || !strings.Contains(msg, "no identity provider key loaded") || !strings.Contains(msg, "certificate") {
			t.Fatalf("%s/readyz with an untrusted key URL: %d %q; want 503 naming the certificate error", base, s, msg)
		}
	}
	if n := testutil.ToFloat64(metrics.ProviderKeys); n != 0 {
		t.Errorf("sharedworld_auth_provider_keys = %v, want 0", n)
	}
	if testutil.ToFloat64(failures) <= before {
		t.Error("sharedworld_auth_provider_refresh_failures_total{document=keys} must count the failed fetch")
	}
}

// A provider down at start is fetched again: the host turns ready, and
// verifies certificates, once its key document answers.
func TestHostTurnsReadyWhenProviderKeysLoad(t *testing.T) {
	kit := testkit.New(t)
	doc := keyDocument(kit)
	var up atomic.Bool
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if !up.Load() {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write(doc)
	}))
	defer idp.Close()
	h := keysHost(t, kit, idp.URL+"/keys")
	if s, msg := providerFailure(t, h.URL()); s != http.StatusServiceUnavailable || !strings.Contains(msg, "status 503") {
		t.Fatalf("/readyz while the provider answers 503: %d %q", s, msg)
	}
	agent := kit.NewAgent("Ada", nil)
	up.Store(true)
	testkit.Eventually(t, 10*time.Second, "ready once the key document answers", func() bool {
		s, _ := get(t, h.URL()+"/readyz", nil)
		return s == http.StatusOK
	})
	if n := testutil.ToFloat64(metrics.ProviderKeys); n != 1 {
		t.Errorf("sharedworld_auth_provider_keys = %v, want 1", n)
	}
	if s, body := get(t, h.URL()+"/me", agent.Headers()); s != http.StatusNoContent {
		t.Fatalf("a certificate of the provider once its keys loaded: %d %v", s, body)
	}
}
