package auth_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/testkit"
)

// flakyProvider fails its key fetches with err until given keys.
type flakyProvider struct {
	mu      sync.Mutex
	err     error
	keys    []auth.Key
	fetches int
}

func (p *flakyProvider) Keys(context.Context) ([]auth.Key, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fetches++
	return p.keys, p.err
}
func (p *flakyProvider) Revocations(context.Context) ([]auth.Revocation, error) { return nil, nil }

func (p *flakyProvider) set(keys []auth.Key, err error) (fetches int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.keys, p.err = keys, err
	return p.fetches
}

func (p *flakyProvider) fetched() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.fetches
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) count(sub string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Count(s.b.String(), sub)
}

// A verifier without keys is not ready and says why; it fetches the keys
// again until it holds some, and logs a failure once per different error,
// not at every retry.
func TestVerifierRetriesKeysAndLogsEachErrorOnce(t *testing.T) {
	var logs syncBuffer
	p := &flakyProvider{err: errors.New("x509: certificate signed by unknown authority")}
	v := auth.NewVerifier(auth.VerifierOptions{Provider: p, KeyRefetch: 20 * time.Millisecond,
		Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	v.Start(ctx)
	if err := v.Ready(ctx); !errors.Is(err, auth.ErrNoProviderKey) || !strings.Contains(err.Error(), "unknown authority") {
		t.Fatalf("Ready without keys: %v", err)
	}
	const failed = `"msg":"identity provider keys could not be loaded"`
	testkit.Eventually(t, 5*time.Second, "keys fetched again", func() bool { return p.fetched() >= 4 })
	if n := logs.count(failed); n != 1 {
		t.Fatalf("one error repeated: %d error lines, want 1", n)
	}
	at := p.set(nil, errors.New("dial tcp: connection refused"))
	testkit.Eventually(t, 5*time.Second, "the new error fetched", func() bool { return p.fetched() >= at+2 })
	if n := logs.count(failed); n != 2 || logs.count("connection refused") != 1 {
		t.Fatalf("a different error is logged once: %d error lines", n)
	}
	if err := v.Ready(ctx); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("Ready names the last error: %v", err)
	}
	p.set([]auth.Key{{Kid: "k1", PublicKey: strings.Repeat("A", 43) + "="}}, nil)
	testkit.Eventually(t, 5*time.Second, "ready once a key loads", func() bool { return v.Ready(ctx) == nil })
	// the keys are in use before the fetch that brought them is logged
	testkit.Eventually(t, 5*time.Second, "the recovery logged", func() bool {
		return logs.count(`"msg":"identity provider keys loaded"`) == 1
	})
}

// A provider that verifies every certificate itself needs no key.
func TestRemoteVerifyingVerifierIsReadyWithoutKeys(t *testing.T) {
	v := auth.NewVerifier(auth.VerifierOptions{Provider: &flakyProvider{err: errors.New("down")}, Remote: &auth.RemoteVerifier{URL: "http://127.0.0.1:1"},
		Logger: slog.New(slog.DiscardHandler)})
	v.Start(t.Context())
	if err := v.Ready(t.Context()); err != nil {
		t.Fatalf("remote verification: %v", err)
	}
}
