package app

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"sharedworld.dev/services/bulletin/internal/domain"
)

// Elector runs lead while this replica is the elected aggregator: lead's
// context ends when leadership is lost (or ctx ends), and Lead campaigns
// again after lead returns, until ctx ends.
type Elector interface {
	Lead(ctx context.Context, lead func(ctx context.Context, term int64)) error
}

// LeaseElector elects through a lease kept in the database (where there is
// no Kubernetes API to hold a Lease object).
type LeaseElector struct {
	Store  domain.LeaseStore
	Holder string
	Log    *slog.Logger
	// Now is the wall clock. Never the world's (development) clock: a
	// lease measures how long a process has been silent, and a clock moved
	// by hours would hand the lease over under a live leader.
	Now func() time.Time
}

// Lead campaigns every domain.LeaseRetryEvery and leads while it holds the
// lease; at the end it releases a held lease, so a standby takes over at
// its next try instead of after the lease expires.
func (e *LeaseElector) Lead(ctx context.Context, lead func(ctx context.Context, term int64)) error {
	now := e.Now
	if now == nil {
		now = time.Now
	}
	for {
		l, err := e.take(ctx, now())
		switch {
		case err == nil:
			e.hold(ctx, l, now, lead)
		case errors.Is(err, domain.ErrLeaseHeld) || ctx.Err() != nil:
		default:
			e.Log.Warn("aggregator lease: campaign failed", slog.String("error", err.Error()))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(domain.LeaseRetryEvery):
		}
	}
}

func (e *LeaseElector) take(ctx context.Context, now time.Time) (domain.Lease, error) {
	// a renewal that hangs must not outlast the renew deadline
	tctx, cancel := context.WithTimeout(ctx, domain.LeaseRenewEvery)
	defer cancel()
	return e.Store.Take(tctx, e.Holder, now)
}

// hold runs lead under l, renews l, and ends lead when a renewal finds the
// lease lost or none succeeded for the renew deadline (the watchdog): the
// leader stops writing before the lease can expire and another replica
// take it.
func (e *LeaseElector) hold(ctx context.Context, l domain.Lease, now func() time.Time, lead func(context.Context, int64)) {
	leadCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	e.Log.Info("leading the aggregator", slog.String("holder", e.Holder), slog.Int64("term", l.Term))
	go func() { defer close(done); lead(leadCtx, l.Term) }()
	// The watchdog ends lead LeaseRenewDeadline after the last renewal,
	// even while a renewal hangs: the leader has stopped writing before
	// the lease can expire and a standby take it. (It runs on the wall
	// clock, as the renewals' own timeouts do.)
	watchdog := time.AfterFunc(domain.LeaseRenewDeadline, func() {
		e.Log.Warn("aggregator lease not renewed within the deadline; standing by", slog.Int64("term", l.Term))
		cancel()
	})
	defer watchdog.Stop()
	tick := time.NewTicker(domain.LeaseRenewEvery)
	defer tick.Stop()
	for {
		select {
		case <-done:
			e.release(l)
			return
		case <-tick.C:
		}
		if leadCtx.Err() != nil { // the watchdog, or ctx, ended it
			<-done
			e.release(l)
			return
		}
		at, started := now(), time.Now()
		next, err := e.take(leadCtx, at)
		switch {
		case err == nil && next.Term == l.Term:
			if !watchdog.Stop() {
				// it fired meanwhile: lead is ending
				<-done
				e.release(next)
				return
			}
			watchdog.Reset(domain.LeaseRenewDeadline - time.Since(started))
			l = next
		case err == nil || errors.Is(err, domain.ErrLeaseHeld):
			e.Log.Warn("aggregator lease lost; standing by", slog.Int64("term", l.Term))
			cancel()
			<-done
			return
		case leadCtx.Err() == nil:
			e.Log.Warn("aggregator lease: renewal failed", slog.String("error", err.Error()))
		}
	}
}

func (e *LeaseElector) release(l domain.Lease) {
	ctx, cancel := context.WithTimeout(context.Background(), domain.LeaseRenewEvery)
	defer cancel()
	if err := e.Store.Release(ctx, l); err != nil {
		e.Log.Warn("aggregator lease: release failed (it expires by itself)", slog.String("error", err.Error()))
	}
}
