package app

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"sharedworld.dev/pkg/clock"
)

// touches counts presence writes by agent, keeping the last one written.
type touches struct {
	mu    sync.Mutex
	count map[string]int
	last  map[string]sighting
}

func (t *touches) Touch(_ context.Context, agentID string, seen, signed time.Time) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.count[agentID]++
	t.last[agentID] = sighting{seen: seen, signed: signed}
	return nil
}

func (t *touches) of(agentID string) (int, sighting) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.count[agentID], t.last[agentID]
}

// presenceAt is a Presence whose WriteEvery is measured on a clock the test moves.
func presenceAt(every time.Duration) (*Presence, *touches, *time.Time) {
	store := &touches{count: map[string]int{}, last: map[string]sighting{}}
	p := newPresence(store, clock.System{}, slog.New(slog.DiscardHandler))
	p.WriteEvery = every
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	p.elapsed = func() time.Time { return now }
	return p, store, &now
}

func TestPresenceWritesAnAgentAtMostOncePerInterval(t *testing.T) {
	p, store, now := presenceAt(time.Minute)
	ctx := context.Background()
	start := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	for i := 0; i < 30; i++ { // one request a second, flushed each second
		p.Record("a", start.Add(time.Duration(i)*time.Second), i == 10)
		p.Flush(ctx)
		*now = now.Add(time.Second)
	}
	if n, _ := store.of("a"); n != 1 {
		t.Fatalf("30 sightings in 30 s were written %d times, want once (the first)", n)
	}
	seen, signed := p.Latest("a")
	if !seen.Equal(start.Add(29*time.Second)) || !signed.Equal(start.Add(10*time.Second)) {
		t.Fatalf("reads must see the newest sighting while it waits: seen %v signed %v", seen, signed)
	}
	*now = now.Add(30 * time.Second)
	p.Flush(ctx)
	n, last := store.of("a")
	if n != 2 || !last.seen.Equal(start.Add(29*time.Second)) || !last.signed.Equal(start.Add(10*time.Second)) {
		t.Fatalf("after the interval the newest sighting is written: %d writes, last %+v", n, last)
	}
	p.Flush(ctx)
	if n, _ := store.of("a"); n != 2 {
		t.Fatalf("nothing new was seen, yet presence was written again (%d writes)", n)
	}

	// A clean stop writes what still waits, whatever the interval.
	p.Record("a", start.Add(40*time.Second), false)
	p.Record("b", start.Add(41*time.Second), true)
	p.flush(ctx, true)
	if n, last := store.of("a"); n != 3 || !last.seen.Equal(start.Add(40*time.Second)) {
		t.Fatalf("the last flush must write every waiting sighting: %d writes, last %+v", n, last)
	}
	if n, _ := store.of("b"); n != 1 {
		t.Fatalf("a new agent's first sighting is written at once: %d writes", n)
	}
}

func TestPresenceWithoutIntervalWritesEveryFlush(t *testing.T) {
	p, store, now := presenceAt(0)
	ctx := context.Background()
	start := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	for i := 0; i < 5; i++ {
		p.Record("a", start.Add(time.Duration(i)*time.Second), false)
		p.Flush(ctx)
		*now = now.Add(time.Second)
	}
	if n, _ := store.of("a"); n != 5 {
		t.Fatalf("with no interval (a shared database) every flush writes: %d writes, want 5", n)
	}
}
