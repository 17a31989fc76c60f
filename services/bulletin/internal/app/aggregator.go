// Package app holds the bulletin's use cases: the aggregator that applies
// every domain's events to the projections and keeps the rendered bulletin,
// the live feed hub, the feed queries and the ambassador's announcements.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"sharedworld.dev/services/bulletin/internal/domain"
)

// Aggregator applies events to the projections: it plans each change in
// memory, shows it on the bulletin, stores it and then sends its feed item
// to live subscribers (see Apply for the order and why).
//
// One aggregator writes a database: the feed's sequence numbers (the live
// stream's order) are assigned here, in apply order.
type Aggregator struct {
	mu          sync.Mutex
	proj        *domain.Projection
	world       domain.WorldConfig
	projections domain.ProjectionRepository
	feed        domain.FeedRepository
	nextSeq     int64

	board   *Board
	hub     *Hub
	render  chan struct{}
	log     *slog.Logger
	handled atomic.Int64
}

// NewAggregator builds an aggregator over empty projections; Load fills them.
func NewAggregator(world domain.WorldConfig, projections domain.ProjectionRepository, feed domain.FeedRepository, hub *Hub, log *slog.Logger) *Aggregator {
	return &Aggregator{
		proj: domain.NewProjection(), world: world, projections: projections, feed: feed, nextSeq: 1,
		board: &Board{}, hub: hub, render: make(chan struct{}, 1), log: log,
	}
}

// Handled counts the events applied so far, changed or not (invalid ones
// excluded): how far the aggregator has got.
func (a *Aggregator) Handled() int64 { return a.handled.Load() }

// Board is the rendered bulletin.
func (a *Aggregator) Board() *Board { return a.board }

// Load reads the stored projections and the newest feed entries, so that
// after a restart the bulletin is right before the first event arrives, and
// renders it.
func (a *Aggregator) Load(ctx context.Context) error {
	a.mu.Lock()
	err := a.projections.Load(ctx, a.proj.Restore)
	if err == nil {
		var newest []domain.StoredFeedEntry
		newest, err = a.feed.Page(ctx, "", nil, domain.FeedWindow)
		entries := make([]domain.FeedEntry, len(newest))
		for i, e := range newest {
			entries[i] = e.FeedEntry
		}
		a.proj.RestoreFeed(entries)
	}
	if err == nil {
		var last int64
		last, err = a.feed.MaxSeq(ctx)
		// Live subscribers only ever got stored items, so the stream goes
		// on right after the last one stored.
		a.nextSeq = last + 1
		a.hub.StartAfter(last)
	}
	a.mu.Unlock()
	if err != nil {
		return fmt.Errorf("load projections: %w", err)
	}
	return a.Render()
}

// Apply applies one event and returns once the change is stored.
//
// A change is committed to memory and rendered first, then written to the
// store, retrying until the write succeeds or ctx ends, and only then is
// its feed item sent to live subscribers. Rendering first keeps the
// store's write time off the path from a write to the bulletin; storing
// before returning keeps the consumer's offset behind what is stored, so a
// crash in between loses nothing — the event is delivered again and applied
// to the reloaded state. Sending only what is stored is what lets a
// resuming stream read the store up to where its subscription starts and
// miss nothing in between (see Hub). The one exception to memory first is
// an old feed entry (one that would not enter the feed window), which may
// already be stored without memory knowing: it is stored first and
// committed only if it was new.
//
// An event that can never apply returns an error wrapping
// domain.ErrInvalidEvent.
func (a *Aggregator) Apply(ctx context.Context, ev domain.Event) error {
	a.mu.Lock()
	ch, err := a.proj.Plan(ev)
	if err != nil || ch.Empty() {
		a.mu.Unlock()
		if err != nil {
			applyErrors.WithLabelValues(ev.Type, "invalid").Inc()
			return err
		}
		a.applied(ev, "unchanged")
		return nil
	}
	memoryFirst := ch.Feed == nil || a.proj.FeedWouldShow(*ch.Feed)
	var seq int64
	if ch.Feed != nil {
		seq = a.nextSeq
		a.nextSeq++
	}
	if memoryFirst {
		a.proj.Commit(ch, true)
	}
	a.mu.Unlock()
	if memoryFirst {
		a.requestRender()
	}

	inserted, err := a.store(ctx, ev.Type, ch, seq)
	if err != nil {
		a.release(ch, seq, false)
		return err
	}
	if !memoryFirst {
		a.mu.Lock()
		a.proj.Commit(ch, inserted)
		a.mu.Unlock()
		a.requestRender()
	}
	a.release(ch, seq, inserted)
	a.applied(ev, "changed")
	return nil
}

// release settles the change's place in the live stream: its feed item
// goes to live subscribers when it was stored under seq; otherwise (it was
// stored before, under its own seq, or not at all) seq is skipped. Every
// seq handed out is settled once, or the items after it would wait.
func (a *Aggregator) release(ch domain.Change, seq int64, stored bool) {
	if ch.Feed == nil {
		return
	}
	if !stored {
		a.hub.Skip(seq)
		return
	}
	a.hub.Publish(StreamItem{Seq: seq, FeedEntry: *ch.Feed})
}

func (a *Aggregator) applied(ev domain.Event, result string) {
	lastApplied.Store(time.Now().UnixNano())
	a.handled.Add(1)
	eventsApplied.WithLabelValues(ev.Type, result).Inc()
}

// store writes the change, retrying with backoff until it is written or
// ctx ends. It reports whether the feed entry was new to the store.
func (a *Aggregator) store(ctx context.Context, eventType string, ch domain.Change, seq int64) (bool, error) {
	backoff := 20 * time.Millisecond
	for {
		inserted, err := a.write(ctx, ch, seq)
		if err == nil {
			return inserted, nil
		}
		applyErrors.WithLabelValues(eventType, "store").Inc()
		a.log.Warn("store projection change failed; retrying", slog.String("event_id", ch.EventID), slog.String("error", err.Error()))
		select {
		case <-ctx.Done():
			return false, fmt.Errorf("store projection change of %s: %w", ch.EventID, errors.Join(err, ctx.Err()))
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 5*time.Second)
	}
}

func (a *Aggregator) write(ctx context.Context, ch domain.Change, seq int64) (bool, error) {
	if ch.Record != nil {
		saved, err := a.projections.Save(ctx, ch.Record)
		if err != nil {
			return false, err
		}
		if !saved {
			// Only a second writer could have stored a newer record.
			a.log.Warn("store holds a newer projection record than memory; is a second aggregator running?",
				slog.String("kind", string(ch.Record.Kind())), slog.String("key", ch.Record.Key()))
		}
	}
	if ch.Feed == nil {
		return false, nil
	}
	return a.feed.Insert(ctx, *ch.Feed, seq)
}

func (a *Aggregator) requestRender() {
	select {
	case a.render <- struct{}{}:
	default: // a rendering is already due; it will include this change
	}
}

// RenderLoop renders after changes until ctx ends. Changes that arrive while
// a rendering runs are folded into the next one, so a burst of events costs
// a few renderings, not one per event.
func (a *Aggregator) RenderLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.render:
			if err := a.Render(); err != nil {
				a.log.Error("render bulletin", slog.String("error", err.Error()))
			}
		}
	}
}

// Render builds, encodes and compresses the bulletin and publishes it.
func (a *Aggregator) Render() error {
	start := time.Now()
	a.mu.Lock()
	doc := a.proj.Bulletin(a.world)
	a.mu.Unlock()
	// The document's lists are fresh slices, never changed after a render,
	// so encoding can run outside the lock while events keep applying.
	raw, err := domain.Encode(doc)
	if err != nil {
		return err
	}
	r, err := newRendered(raw)
	if err != nil {
		return fmt.Errorf("compress bulletin: %w", err)
	}
	a.board.publish(r)
	renderSeconds.Observe(time.Since(start).Seconds())
	documentBytes.Set(float64(len(raw)))
	return nil
}
