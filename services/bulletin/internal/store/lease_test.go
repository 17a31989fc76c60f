package store_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/bulletin/internal/app"
	"sharedworld.dev/services/bulletin/internal/domain"
	"sharedworld.dev/services/bulletin/internal/store"
)

// Two replicas (their own database handles) with ten campaigners each
// take the lease at once, round after round, each round after the last
// term lapsed: every round exactly one of them takes it, in the next term.
func TestLeaseOneHolderPerTermAcrossReplicas(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	replicas := []*store.Leases{store.NewLeases(kit.ReplicaDB(), "aggregator"), store.NewLeases(kit.ReplicaDB(), "aggregator")}
	base := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for round := range 8 {
		at := base.Add(time.Duration(round) * domain.LeaseDuration)
		var won atomic.Int32
		var term atomic.Int64
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				l, err := replicas[i%2].Take(ctx, string(rune('a'+i)), at)
				switch {
				case err == nil:
					won.Add(1)
					term.Store(l.Term)
				case !errors.Is(err, domain.ErrLeaseHeld):
					t.Errorf("take: %v", err)
				}
			}()
		}
		wg.Wait()
		if won.Load() != 1 || term.Load() != int64(round+1) {
			t.Fatalf("round %d: %d campaigners took the lease (term %d); want exactly one, in term %d", round, won.Load(), term.Load(), round+1)
		}
	}
}

// A holder that dies holds the lease until it expires; a standby on
// another replica then leads within LeaseDuration+LeaseRetryEvery, in the
// next term. The standby's clock is moved past the expiry instead of
// waiting for it.
func TestAStandbyLeadsOnceADeadHoldersLeaseExpires(t *testing.T) {
	kit := testkit.New(t)
	ctx, cancel := context.WithCancel(kit.Ctx())
	defer cancel()
	dead, err := store.NewLeases(kit.ReplicaDB(), "aggregator").Take(ctx, "dead", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var skew atomic.Int64
	var led atomic.Int64
	tries := &countingLeases{LeaseStore: store.NewLeases(kit.ReplicaDB(), "aggregator")}
	standby := &app.LeaseElector{Store: tries, Holder: "standby", Log: kit.Logger,
		Now: func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = standby.Lead(ctx, func(ctx context.Context, term int64) { led.Store(term); <-ctx.Done() })
	}()
	// While the dead holder's lease runs, the standby is refused.
	testkit.Eventually(t, 5*domain.LeaseRetryEvery, "the standby campaigned twice", func() bool { return tries.n.Load() >= 2 })
	if led.Load() != 0 {
		t.Fatalf("the standby led (term %d) while the dead holder's lease ran", led.Load())
	}
	skew.Store(int64(domain.LeaseDuration))
	testkit.Eventually(t, 3*domain.LeaseRetryEvery, "the standby leads", func() bool { return led.Load() == dead.Term+1 })
	cancel()
	<-done
}

// countingLeases counts the campaigns made through it.
type countingLeases struct {
	domain.LeaseStore
	n atomic.Int32
}

func (c *countingLeases) Take(ctx context.Context, holder string, now time.Time) (domain.Lease, error) {
	defer c.n.Add(1)
	return c.LeaseStore.Take(ctx, holder, now)
}
