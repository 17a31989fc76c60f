package platform_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/config"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/pkg/testkit"
)

// replicaHost is one process serving the asker unit on the kit's database.
func replicaHost(t *testing.T, kit *testkit.Kit, limits map[string]string) *platform.Host {
	t.Helper()
	ask := &asker{ran: make(chan struct{})}
	unit := platform.Unit{Name: "asker",
		Trust: func(context.Context, platform.Env) ([]auth.Provider, error) {
			return []auth.Provider{kit.Provider}, nil
		},
		Build: func(_ context.Context, env platform.Env) (platform.Service, error) {
			ask.deps = env.Deps
			return ask, nil
		}}
	cfg := config.Common{Addr: "127.0.0.1:0", AgentIDPrefix: "emb", RevocationRefreshSec: 30, IdentityURL: "http://127.0.0.1:1", RateLimits: limits}
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

func post(t *testing.T, url string, headers map[string]string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", url, nil)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

// The host's gate keeps used signatures in the database: another replica
// refuses a write's signature once used, and the service after a restart
// refuses every used signature, a read's too (a read's record is queued
// without a waiter, and a stop stores what it queued).
func TestHostAcceptsASignatureOnceAcrossReplicasAndRestarts(t *testing.T) {
	kit := testkit.New(t)
	ada := kit.NewAgent("Ada", nil)
	now := time.Now().Unix()
	read, write := ada.Headers(), ada.Headers()
	read["X-Agent-Signature"] = auth.SignRequestNonce(ada.Key, "GET", "/me", now, nil, "read-once")
	write["X-Agent-Signature"] = auth.SignRequestNonce(ada.Key, "POST", "/note", now, nil, "write-once")
	first := replicaHost(t, kit, nil)
	if s, body := get(t, first.URL()+"/me", read); s != 204 {
		t.Fatalf("first use of a read's signature: %d %v", s, body)
	}
	if s := post(t, first.URL()+"/note", write); s != 204 {
		t.Fatalf("first use of a write's signature: %d", s)
	}
	if testkit.Mode() == mongox.Shared {
		if s := post(t, replicaHost(t, kit, nil).URL()+"/note", write); s != 401 {
			t.Fatalf("a second replica accepted a used write signature: %d", s)
		}
	}
	if err := first.Stop(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	restarted := replicaHost(t, kit, nil)
	if s, _ := get(t, restarted.URL()+"/me", read); s != 401 {
		t.Fatalf("after a restart a used read signature was accepted: %d", s)
	}
	if s := post(t, restarted.URL()+"/note", write); s != 401 {
		t.Fatalf("after a restart a used write signature was accepted: %d", s)
	}
}

// WORLD_RATE_LIMITS reaches the host's auth middleware: the writes budget
// is one per agent, shared by the replicas of a shared database.
func TestHostCountsWritesPerAgent(t *testing.T) {
	kit := testkit.New(t)
	ada := kit.NewAgent("Ada", nil)
	limits := map[string]string{"writes": "2/1h"}
	a := replicaHost(t, kit, limits)
	b := a
	if testkit.Mode() == mongox.Shared {
		b = replicaHost(t, kit, limits)
	}
	for i, h := range []*platform.Host{a, b} {
		if s := post(t, h.URL()+"/note", ada.Headers()); s != 204 {
			t.Fatalf("write %d: %d", i+1, s)
		}
	}
	for _, h := range []*platform.Host{a, b} {
		if s := post(t, h.URL()+"/note", ada.Headers()); s != 429 {
			t.Fatalf("a write over the budget: %d", s)
		}
	}
	if s, _ := get(t, a.URL()+"/me", ada.Headers()); s != 204 {
		t.Fatalf("reads are not writes: %d", s)
	}
}
