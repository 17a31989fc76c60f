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

	mu      sync.Mutex
	pending map[string]sighting
	latest  map[string]sighting // survives flushes so reads see the newest sighting
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
	s := p.latest[agentID]
	return s.seen, s.signed
}

// Run flushes sightings every second until ctx ends, then once more.
func (p *Presence) Run(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			p.Flush(context.WithoutCancel(ctx))
			return
		case <-t.C:
			p.Flush(ctx)
		}
	}
}

// Flush writes pending sightings.
func (p *Presence) Flush(ctx context.Context) {
	p.mu.Lock()
	batch := p.pending
	p.pending = make(map[string]sighting)
	if len(p.latest) > 100_000 {
		p.latest = make(map[string]sighting)
	}
	p.mu.Unlock()
	for id, s := range batch {
		if err := p.store.Touch(ctx, id, s.seen, s.signed); err != nil {
			p.log.Warn("presence write failed", slog.String("agent_id", id), slog.String("error", err.Error()))
		}
	}
}
