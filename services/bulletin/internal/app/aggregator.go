// Package app holds the bulletin's use cases: the aggregator that applies
// every domain's events to the projections and keeps the rendered bulletin,
// the live feed hub, the feed queries and the ambassador's announcements.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
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
	obs     Observer
	handled atomic.Int64

	// stale is set once another writer is found in the feed: memory no
	// longer knows what is stored, so nothing more is planned on it (a
	// change planned on it could leave a feed item out for good), and
	// superseded is told, to end this aggregator's run.
	stale      atomic.Bool
	superseded func(error)
}

// OnSuperseded sets what is called (once) when the aggregator finds another
// writer in the feed; from then on every apply fails with
// domain.ErrFeedSeqTaken. The caller ends the run and loads a new
// aggregator from the store.
func (a *Aggregator) OnSuperseded(f func(error)) { a.superseded = f }

// NewAggregator builds an aggregator over empty projections; Load fills them.
func NewAggregator(world domain.WorldConfig, projections domain.ProjectionRepository, feed domain.FeedRepository, hub *Hub, log *slog.Logger, obs Observer) *Aggregator {
	return &Aggregator{
		proj: domain.NewProjection(), world: world, projections: projections, feed: feed, nextSeq: 1,
		board: NewBoard(), hub: hub, render: make(chan struct{}, 1), log: log, obs: obs,
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

// Apply applies one event and returns once its change is stored. An event
// that can never apply returns an error wrapping domain.ErrInvalidEvent.
func (a *Aggregator) Apply(ctx context.Context, ev domain.Event) error {
	invalid, err := a.apply(ctx, []domain.Event{ev})
	if err != nil {
		return err
	}
	if len(invalid) > 0 {
		return invalid[0]
	}
	return nil
}

// ApplyBatch applies events in order, with the effect of Apply on each in
// turn, and returns once every change is stored: a backlog costs one write
// per collection per batch instead of a few per event, and a record that
// several events change is written once, in its newest state. An event
// that can never apply is logged and skipped.
//
// The events are applied in chunks whose feed items fit twice in a live
// subscriber's buffer: a chunk's items reach the hub at once, and a larger
// burst would drop every live subscriber, sending them all to read the
// store at the same moment.
func (a *Aggregator) ApplyBatch(ctx context.Context, evs []domain.Event) error {
	size := max(1, a.hub.Buffer()/2)
	for chunk := range slices.Chunk(evs, size) {
		invalid, err := a.apply(ctx, chunk)
		for _, e := range invalid {
			a.log.Error("skipping an event that cannot be applied", slog.String("error", e.Error()))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// planned is one event's change with its place in the live stream.
type planned struct {
	ev  domain.Event
	ch  domain.Change
	seq int64
}

// apply applies events and reports those that can never apply.
//
// Every change is committed to memory and rendered first, then the batch's
// changes are written to the store, retrying until the writes succeed or
// ctx ends, and only then are their feed items sent to live subscribers.
// Rendering first keeps the store's write time off the path from a write
// to the bulletin; storing before returning keeps the consumer's offsets
// behind what is stored, so a crash in between loses nothing — the events
// are delivered again and applied to the reloaded state, where what was
// stored plans no change (versions per aggregate, feed entries keyed by
// event id). Sending only what is stored is what lets a resuming stream
// read the store up to where its subscription starts and miss nothing in
// between (see Hub). An old feed entry (one that would not enter the feed
// window) may already be stored without memory knowing: its insert is
// refused and its seq skipped.
func (a *Aggregator) apply(ctx context.Context, evs []domain.Event) (invalid []error, err error) {
	var changes []planned
	var unchanged []domain.Event
	a.mu.Lock()
	if a.stale.Load() {
		a.mu.Unlock()
		return nil, fmt.Errorf("aggregator memory is stale: %w", domain.ErrFeedSeqTaken)
	}
	for _, ev := range evs {
		ch, err := a.proj.Plan(ev)
		if err != nil {
			a.obs.EventFailed(ev.Type, "invalid")
			invalid = append(invalid, err)
			continue
		}
		if ch.Empty() {
			unchanged = append(unchanged, ev)
			continue
		}
		p := planned{ev: ev, ch: ch}
		shows := false
		if ch.Feed != nil {
			p.seq = a.nextSeq
			a.nextSeq++
			shows = a.proj.FeedWouldShow(*ch.Feed)
		}
		// Later events of the batch are planned on this change.
		a.proj.Commit(ch, shows)
		changes = append(changes, p)
	}
	a.mu.Unlock()
	defer func() {
		for _, ev := range unchanged {
			a.applied(ev, "unchanged")
		}
	}()
	if len(changes) == 0 {
		return invalid, nil
	}
	a.requestRender()

	inserted, err := a.store(ctx, changes)
	if err != nil {
		for _, p := range changes {
			a.release(p.ch, p.seq, false)
		}
		return invalid, err
	}
	now := time.Now()
	for i, p := range changes {
		a.release(p.ch, p.seq, inserted[i])
		a.applied(p.ev, "changed")
		if inserted[i] {
			a.obs.ItemDelay("stored", now.Sub(p.ch.Feed.Item.At))
		}
	}
	return invalid, nil
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
	a.handled.Add(1)
	a.obs.EventApplied(ev.Type, result)
}

// store writes the changes, retrying with backoff until they are written
// or ctx ends; a seq another writer took (domain.ErrFeedSeqTaken) ends it
// at once, since no retry of this memory's plan can succeed. It reports,
// per change, whether its feed entry is stored under the change's seq.
func (a *Aggregator) store(ctx context.Context, changes []planned) ([]bool, error) {
	backoff := 20 * time.Millisecond
	for {
		inserted, err := a.write(ctx, changes)
		if err == nil {
			return inserted, nil
		}
		if errors.Is(err, domain.ErrFeedSeqTaken) {
			// Retrying would meet the other writer's entry again, forever:
			// this memory is stale, and only a fresh load can go on.
			a.log.Warn("another aggregator wrote the feed; this one stops to load the store afresh",
				slog.String("first_event_id", changes[0].ch.EventID), slog.String("error", err.Error()))
			if !a.stale.Swap(true) && a.superseded != nil {
				a.superseded(err)
			}
			return nil, err
		}
		for _, p := range changes {
			a.obs.EventFailed(p.ev.Type, "store")
		}
		a.log.Warn("store projection changes failed; retrying", slog.Int("changes", len(changes)),
			slog.String("first_event_id", changes[0].ch.EventID), slog.String("error", err.Error()))
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("store projection changes from %s: %w", changes[0].ch.EventID, errors.Join(err, ctx.Err()))
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 5*time.Second)
	}
}

// write stores the newest record of each aggregate the changes touched,
// then their feed entries: two writes per batch, whatever its size.
func (a *Aggregator) write(ctx context.Context, changes []planned) ([]bool, error) {
	var records []domain.Record
	at := map[string]int{} // kind/key → index in records
	var entries []domain.StoredFeedEntry
	var withFeed []int // index in changes of each entry
	for i, p := range changes {
		if r := p.ch.Record; r != nil {
			k := string(r.Kind()) + "/" + r.Key()
			if j, ok := at[k]; ok {
				records[j] = r // memory applied them in order: the last is the newest
			} else {
				at[k] = len(records)
				records = append(records, r)
			}
		}
		if p.ch.Feed != nil {
			entries = append(entries, domain.StoredFeedEntry{Seq: p.seq, FeedEntry: *p.ch.Feed})
			withFeed = append(withFeed, i)
		}
	}
	if len(records) > 0 {
		saved, err := a.projections.SaveAll(ctx, records)
		if err != nil {
			return nil, err
		}
		for i, ok := range saved {
			if !ok {
				// Only a second writer could have stored a newer record.
				a.log.Warn("store holds a newer projection record than memory; is a second aggregator running?",
					slog.String("kind", string(records[i].Kind())), slog.String("key", records[i].Key()))
			}
		}
	}
	inserted := make([]bool, len(changes))
	if len(entries) == 0 {
		return inserted, nil
	}
	stored, err := a.feed.InsertAll(ctx, entries)
	if err != nil {
		return nil, err
	}
	for j, i := range withFeed {
		inserted[i] = stored[j]
	}
	return inserted, nil
}

func (a *Aggregator) requestRender() {
	select {
	case a.render <- struct{}{}:
	default: // a rendering is already due; it will include this change
	}
}

// renderInterval is the least time between two renderings: a change after
// a quiet spell is rendered at once, while a backlog being applied costs
// at most one rendering per interval instead of taking CPU from the
// catch-up itself.
const renderInterval = 50 * time.Millisecond

// RenderLoop renders after changes until ctx ends. Changes that arrive while
// a rendering runs, or within renderInterval of its start, are folded into
// the next one, so a burst of events costs a few renderings, not one per
// event.
func (a *Aggregator) RenderLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.render:
		}
		start := time.Now()
		if err := a.Render(); err != nil {
			a.log.Error("render bulletin", slog.String("error", err.Error()))
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(renderInterval - time.Since(start)):
		}
	}
}

// Render builds, encodes and compresses the bulletin and publishes it.
func (a *Aggregator) Render() error {
	start := time.Now()
	a.mu.Lock()
	// Every seq handed out so far belongs to a change committed to memory
	// (under mu), so this rendering shows every item up to the last one.
	covers := a.nextSeq - 1
	doc := a.proj.Bulletin(a.world)
	prev := a.board.Current()
	bits, mapChanged := a.proj.Occupancy(prev == nil)
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
	r.Covers = covers
	if !mapChanged {
		r.Map = prev.Map
	} else if r.Map, err = newRendered(bits); err != nil {
		return fmt.Errorf("compress map: %w", err)
	}
	a.board.publish(r)
	a.obs.Rendered(time.Since(start), len(raw))
	return nil
}
