package kube

import (
	"context"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes/fake"
)

// Two replicas campaign for one Lease: one leads; when it stops, it
// releases the Lease and the other leads in the next term.
func TestOneReplicaLeadsAndHandsOver(t *testing.T) {
	client := fake.NewClientset()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var leaders atomic.Int32
	var lastTerm atomic.Int64
	run := func(holder string) (stop func(), led *atomic.Bool) {
		ctx, cancel := context.WithCancel(context.Background())
		led = &atomic.Bool{}
		done := make(chan struct{})
		e := &Elector{Client: client, Namespace: "world", Name: "bulletin-aggregator", Holder: holder, Log: log}
		go func() {
			defer close(done)
			_ = e.Lead(ctx, func(ctx context.Context, term int64) {
				if leaders.Add(1) > 1 {
					t.Errorf("two replicas lead at once")
				}
				lastTerm.Store(term)
				led.Store(true)
				<-ctx.Done()
				led.Store(false)
				leaders.Add(-1)
			})
		}()
		return func() { cancel(); <-done }, led
	}
	stopA, ledA := run("a")
	waitUntil(t, 10*time.Second, func() bool { return ledA.Load() })
	firstTerm := lastTerm.Load()
	stopB, ledB := run("b")
	defer stopB()
	stopA()
	waitUntil(t, 10*time.Second, func() bool { return ledB.Load() })
	if lastTerm.Load() <= firstTerm {
		t.Fatalf("the second leader's term %d is not after the first's %d", lastTerm.Load(), firstTerm)
	}
}

func waitUntil(t *testing.T, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("not within the deadline")
		}
		time.Sleep(10 * time.Millisecond) // polling, with the deadline above
	}
}
