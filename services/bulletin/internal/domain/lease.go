package domain

import (
	"context"
	"errors"
	"time"
)

// Lease is the aggregator's lease: who holds it, for which term and until
// when. One aggregator writes the projections and the feed at a time (the
// feed's sequence numbers are assigned in its memory), so every aggregator
// replica campaigns for the lease and only its holder applies events.
type Lease struct {
	Holder string
	// Term grows by one each time the lease changes hands (or is taken
	// again after it lapsed), never on a renewal: the number of takeovers.
	Term    int64
	Expires time.Time
}

// The lease's timing. A holder renews every LeaseRenewEvery and gives up
// leading when it could not renew for LeaseRenewDeadline, which is shorter
// than LeaseDuration: it has stopped writing before anyone else may take
// the lease. A standby tries every LeaseRetryEvery, so it leads at most
// LeaseDuration+LeaseRetryEvery after the holder's last renewal (the
// issue's bound is 15 s after the holder dies).
const (
	LeaseDuration      = 8 * time.Second
	LeaseRenewDeadline = 6 * time.Second
	LeaseRenewEvery    = 2 * time.Second
	LeaseRetryEvery    = time.Second
)

// ErrLeaseHeld means another holder's lease has not expired.
var ErrLeaseHeld = errors.New("the aggregator lease is held by another replica")

// TakenBy is the lease after holder asks for it at now: renewed when it
// holds it already, taken over (next term) when it lapsed or was released,
// refused with ErrLeaseHeld while another holder's lease runs.
func (l Lease) TakenBy(holder string, now time.Time) (Lease, error) {
	if holder == "" {
		return l, errors.New("lease holder must not be empty")
	}
	switch {
	case l.Holder == holder && now.Before(l.Expires):
		return Lease{Holder: holder, Term: l.Term, Expires: now.Add(LeaseDuration)}, nil
	case l.Holder == "" || !now.Before(l.Expires):
		return Lease{Holder: holder, Term: l.Term + 1, Expires: now.Add(LeaseDuration)}, nil
	default:
		return l, ErrLeaseHeld
	}
}

// Released is the lease given up by its holder at a clean stop, so that a
// standby takes it at its next try instead of waiting for it to expire.
func (l Lease) Released() Lease { return Lease{Term: l.Term} }

// LeaseStore keeps the lease where every aggregator replica sees it.
type LeaseStore interface {
	// Take renews holder's lease or takes a lapsed one (see Lease.TakenBy),
	// atomically: of two replicas taking it at once, one gets
	// ErrLeaseHeld.
	Take(ctx context.Context, holder string, now time.Time) (Lease, error)
	// Release gives the lease up, if l is still the stored lease.
	Release(ctx context.Context, l Lease) error
}
