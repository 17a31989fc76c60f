package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"sharedworld.dev/services/bulletin/internal/domain"
)

// MoveLock serialises the pin moves of every replica: "one pinned at a
// time" spans documents, and MongoDB here has no multi-document
// transactions, so a move (read what is pinned, unpin it, pin the target)
// runs under a lease in the database that one replica holds at a time. A
// replica that dies holding it leaves it to expire (domain.LeaseDuration).
// Within a process a mutex queues the moves first, so waiting replicas'
// requests poll the database, not each of their goroutines.
type MoveLock struct {
	local sync.Mutex
	// Store is nil where the process is the database's only writer: the
	// mutex is then the whole lock.
	Store domain.LeaseStore
	// Now is the wall clock (a lease measures real time; see LeaseElector).
	Now func() time.Time
}

// moveWait is how long a replica waits between two tries for the lease.
const moveWait = 5 * time.Millisecond

// Lock takes the lock, waiting for it until ctx ends.
func (l *MoveLock) Lock(ctx context.Context) (unlock func(), err error) {
	l.local.Lock()
	if l.Store == nil {
		return l.local.Unlock, nil
	}
	now := l.Now
	if now == nil {
		now = time.Now
	}
	var token [8]byte
	_, _ = rand.Read(token[:])
	holder := hex.EncodeToString(token[:])
	for {
		lease, err := l.Store.Take(ctx, holder, now())
		if err == nil {
			return func() {
				// a release that fails leaves the lease to expire
				_ = l.Store.Release(context.WithoutCancel(ctx), lease)
				l.local.Unlock()
			}, nil
		}
		if !errors.Is(err, domain.ErrLeaseHeld) {
			l.local.Unlock()
			return nil, fmt.Errorf("take the pin lock: %w", err)
		}
		select {
		case <-ctx.Done():
			l.local.Unlock()
			return nil, fmt.Errorf("take the pin lock: %w", ctx.Err())
		case <-time.After(moveWait):
		}
	}
}
