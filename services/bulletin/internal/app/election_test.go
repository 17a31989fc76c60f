package app_test

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"sharedworld.dev/services/bulletin/internal/app"
	"sharedworld.dev/services/bulletin/internal/domain"
)

// hangingLeases grants the lease once, then every later Take hangs until
// its context ends: a database that stopped answering the renewals.
type hangingLeases struct{ takes atomic.Int32 }

func (h *hangingLeases) Take(ctx context.Context, holder string, now time.Time) (domain.Lease, error) {
	if h.takes.Add(1) == 1 {
		return domain.Lease{}.TakenBy(holder, now)
	}
	<-ctx.Done()
	return domain.Lease{}, ctx.Err()
}

func (h *hangingLeases) Release(context.Context, domain.Lease) error { return nil }

// A leader whose renewals hang stops leading LeaseRenewDeadline after its
// last renewal, while the renewal in flight still hangs: before the lease
// can expire and a standby take it, with time to spare for the writes in
// flight to end. Waiting for the hanging renewal's own timeout would stop
// it only as the lease expires.
func TestALeaderWhoseRenewalsHangStopsBeforeTheLeaseExpires(t *testing.T) {
	leases := &hangingLeases{}
	e := &app.LeaseElector{Store: leases, Holder: "a", Log: slog.New(slog.DiscardHandler)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	granted := make(chan time.Time, 1)
	ended := make(chan time.Time, 1)
	go func() {
		_ = e.Lead(ctx, func(ctx context.Context, term int64) {
			granted <- time.Now()
			<-ctx.Done()
			ended <- time.Now()
		})
	}()
	start := <-granted
	var stop time.Time
	select {
	case stop = <-ended:
	case <-time.After(2 * domain.LeaseDuration):
		t.Fatal("the leader never stopped leading")
	}
	if led := stop.Sub(start); led < domain.LeaseRenewDeadline || led > domain.LeaseDuration-time.Second {
		t.Fatalf("led %v after the last renewal; want between the renew deadline %v and a second before the lease expires (%v)",
			led, domain.LeaseRenewDeadline, domain.LeaseDuration)
	}
}
