package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"sync"
	"time"

	"sharedworld.dev/pkg/problem"
)

// SignatureLedger records the first use of a request signature where every
// replica of a service and every later start of it sees it.
type SignatureLedger interface {
	// FirstUse records key until expires and reports whether it was new;
	// false means some process recorded it before.
	FirstUse(ctx context.Context, key string, expires time.Time) (bool, error)
	// Record is FirstUse for a request that changes nothing: it looks key
	// up, a read, and records it without waiting for the write.
	Record(ctx context.Context, key string, expires time.Time) (bool, error)
}

// ReplayCache decides that a request signature is accepted once. Its
// in-process memory answers a replay to the same process at once; the
// ledger, when there is one, makes the answer hold across replicas and
// restarts. A read (a safe method: it changes nothing) looks its signature
// up in the ledger but does not wait for its record, since reads never wait
// on writes: its replay is refused by the process that served it at once,
// and everywhere once the record landed (the ledger's next insert,
// milliseconds later). A replayed read inside that gap, or after a crash
// lost its record, is answered once more and changes nothing; a write
// waits for its record, so no write's effect is ever doubled by a replay.
type ReplayCache struct {
	ledger SignatureLedger
	mu     sync.Mutex
	seen   map[string]int64
	last   time.Time
}

// NewReplayCache returns a cache that remembers in this process only.
func NewReplayCache() *ReplayCache { return NewDurableReplayCache(nil) }

// NewDurableReplayCache returns a cache whose first uses are recorded in
// ledger (nil: in this process only).
func NewDurableReplayCache(ledger SignatureLedger) *ReplayCache {
	return &ReplayCache{ledger: ledger, seen: make(map[string]int64)}
}

// firstUse records (t, nonce, sig) and reports whether it was new. The
// key is the signature itself, not who presents it: the signed string names
// no agent, so one signature verifies for every certificate of the same
// public key (a provider may certify a key twice), and is still one use.
func (r *ReplayCache) firstUse(ctx context.Context, rs RequestSignature, now time.Time, safe bool) (bool, error) {
	key := strconv.FormatInt(rs.T, 10) + "|" + rs.Nonce + "|" + encodeStd(rs.Sig)
	if !r.remember(key, rs.T, now) {
		return false, nil
	}
	if r.ledger == nil {
		return true, nil
	}
	sum := sha256.Sum256([]byte(key))
	// A signature stops verifying SignatureWindow after its t; the ledger
	// may forget it then.
	expires := time.Unix(rs.T, 0).Add(SignatureWindow + time.Second)
	record := r.ledger.FirstUse
	if safe {
		record = r.ledger.Record
	}
	first, err := record(ctx, hex.EncodeToString(sum[:]), expires)
	if err != nil {
		// Not recorded anywhere: let the same signature be tried again.
		r.forget(key)
		return false, problem.Unavailable("The request signature could not be recorded as used.", "Retry in a few seconds; nothing was done.")
	}
	return first, nil
}

// remember puts key in memory and reports whether it was new there; it
// drops entries older than the window once a minute.
func (r *ReplayCache) remember(key string, t int64, now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if now.Sub(r.last) > time.Minute {
		cutoff := now.Add(-SignatureWindow).Unix()
		for k, t := range r.seen {
			if t < cutoff {
				delete(r.seen, k)
			}
		}
		r.last = now
	}
	if _, dup := r.seen[key]; dup {
		return false
	}
	r.seen[key] = t
	return true
}

func (r *ReplayCache) forget(key string) {
	r.mu.Lock()
	delete(r.seen, key)
	r.mu.Unlock()
}
