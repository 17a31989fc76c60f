package app

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"sharedworld.dev/pkg/clock"
)

type sighting struct{ seen, signed time.Time }

// Presence collects sightings from every authenticated request in memory and
// writes them once a second, so presence adds no I/O to the request path.
type Presence struct {
	store interface {
		Touch(ctx context.Context, agentID string, seen, signed time.Time) error
	}
	// clock stamps sightings with the world's time, the one every other
	// time of the world follows (the development clock moves it).
	clock clock.Clock
	log   *slog.Logger

	// WriteEvery is the least time between two writes of one agent's
	// presence (0: every flush writes every new sighting). When this
	// process is the database's only writer, every read of presence merges
	// the sightings held here, so the stored copy only has to outlive a
	// restart: a clean stop writes everything, and a crash forgets at most
	// this much of last_seen_at. Identity's database is then no longer
	// rewritten once a second for every agent that acts.
	WriteEvery time.Duration
	// elapsed is the monotonic time WriteEvery is measured in (a test's
	// may jump); the world's clock may be moved by the development clock.
	elapsed func() time.Time

	mu      sync.Mutex
	pending map[string]sighting
	latest  map[string]sighting  // survives flushes so reads see the newest sighting
	written map[string]time.Time // when each agent's presence was last written (elapsed)
}

func newPresence(store interface {
	Touch(ctx context.Context, agentID string, seen, signed time.Time) error
}, clk clock.Clock, log *slog.Logger) *Presence {
	return &Presence{store: store, clock: clk, log: log, elapsed: time.Now,
		pending: map[string]sighting{}, latest: map[string]sighting{}, written: map[string]time.Time{}}
}

// Seen records a sighting (the auth middleware's hook).
func (p *Presence) Seen(_ context.Context, agentID string, signed bool) {
	p.Record(agentID, p.clock.Now().UTC(), signed)
}

// Record records a sighting at a given time.
func (p *Presence) Record(agentID string, at time.Time, signed bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.latest[agentID]
	if pending, ok := p.pending[agentID]; ok {
		s = pending // latest may have been cleared while this one waited
	}
	s.seen = at
	if signed {
		s.signed = at
	}
	p.latest[agentID] = s
	p.pending[agentID] = s
}

// Latest returns the newest sighting known in memory.
func (p *Presence) Latest(agentID string) (seen, signed time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s, ok := p.pending[agentID]
	if !ok {
		s = p.latest[agentID]
	}
	return s.seen, s.signed
}

// Run flushes sightings every second until ctx ends, then writes every
// pending one.
func (p *Presence) Run(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			p.flush(context.WithoutCancel(ctx), true)
			return
		case <-t.C:
			p.Flush(ctx)
		}
	}
}

// Flush writes the pending sightings of agents whose presence was not
// written within WriteEvery; the others stay pending.
func (p *Presence) Flush(ctx context.Context) { p.flush(ctx, false) }

func (p *Presence) flush(ctx context.Context, all bool) {
	now := p.elapsed()
	batch := map[string]sighting{}
	p.mu.Lock()
	for id, s := range p.pending {
		if last, ok := p.written[id]; ok && !all && now.Sub(last) < p.WriteEvery {
			continue
		}
		batch[id] = s
		delete(p.pending, id)
		p.written[id] = now
	}
	if len(p.latest) > 100_000 {
		p.latest = make(map[string]sighting)
	}
	if len(p.written) > 100_000 {
		p.written = make(map[string]time.Time)
	}
	p.mu.Unlock()
	for id, s := range batch {
		if err := p.store.Touch(ctx, id, s.seen, s.signed); err != nil {
			p.log.Warn("presence write failed", slog.String("agent_id", id), slog.String("error", err.Error()))
		}
	}
}
