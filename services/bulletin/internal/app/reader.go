package app

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"sharedworld.dev/services/bulletin/internal/domain"
)

// Reader serves what the elected aggregator stored: it keeps the document
// and the map as served bytes and feeds its own hub from the stored feed,
// catching up to each head it learns (from a signal, or from the store
// every ResyncEvery in case a signal was lost). Every reader numbers the
// stream with the stored seqs, so a client resumes on any reader.
type Reader struct {
	feed       domain.FeedRepository
	renderings domain.RenderingStore
	hub        *Hub
	board      *Board
	log        *slog.Logger
	obs        Observer

	mu sync.Mutex // one catch-up at a time
}

// ResyncEvery is how often a reader reads the stored head without a
// signal: the bound on how long a lost signal delays it.
const ResyncEvery = 2 * time.Second

// NewReader serves from the stores into hub and board.
func NewReader(feed domain.FeedRepository, renderings domain.RenderingStore, hub *Hub, board *Board, log *slog.Logger, obs Observer) *Reader {
	return &Reader{feed: feed, renderings: renderings, hub: hub, board: board, log: log, obs: obs}
}

// Load starts the reader at the stored head: its stream goes on after the
// head's settled seq (before any head, after the stored feed's last seq).
func (r *Reader) Load(ctx context.Context) error {
	h, ok, err := r.renderings.Head(ctx)
	if err != nil {
		return err
	}
	if !ok {
		if h.Settled, err = r.feed.MaxSeq(ctx); err != nil {
			return err
		}
	}
	r.hub.StartAfter(h.Settled)
	r.obs.ReaderSettled(h.Settled)
	return r.Sync(ctx, h)
}

// Run catches up to every head signalled, and to the stored one every
// ResyncEvery, until ctx ends.
func (r *Reader) Run(ctx context.Context, heads <-chan domain.Head) {
	tick := time.NewTicker(ResyncEvery)
	defer tick.Stop()
	for {
		var err error
		select {
		case <-ctx.Done():
			return
		case h := <-heads:
			err = r.Sync(ctx, h)
		case <-tick.C:
			var h domain.Head
			var ok bool
			if h, ok, err = r.renderings.Head(ctx); err == nil && ok {
				err = r.Sync(ctx, h)
			}
		}
		if err != nil && ctx.Err() == nil {
			r.log.Warn("reader catch-up failed; retrying at the next head", slog.String("error", err.Error()))
		}
	}
}

// Sync catches up to h: the document and the map h names (or newer ones),
// then the feed's items up to h.Settled into the hub, in seq order, every
// seq missing among them skipped (below a settled seq a missing one was
// never stored). Document first: the head's document shows every item up
// to its settled seq, so a client that reads the bulletin on an item finds
// the item's change in it.
func (r *Reader) Sync(ctx context.Context, h domain.Head) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.show(ctx, h); err != nil {
		return err
	}
	for at := r.hub.Released(); at < h.Settled; at = r.hub.Released() {
		items, err := r.feed.Since(ctx, at, catchUpChunk)
		if err != nil {
			return err
		}
		for _, it := range items {
			if it.Seq > h.Settled {
				break
			}
			for s := at + 1; s < it.Seq; s++ {
				r.hub.Skip(s)
			}
			r.hub.Publish(it)
			r.obs.ItemDelay("served", time.Since(it.Item.At))
			at = it.Seq
		}
		if len(items) < catchUpChunk || items[len(items)-1].Seq >= h.Settled {
			for s := at + 1; s <= h.Settled; s++ {
				r.hub.Skip(s)
			}
		}
	}
	r.obs.ReaderSettled(h.Settled)
	return nil
}

// catchUpChunk is how many stored items one read of a catch-up fetches.
const catchUpChunk = 500

// show loads the document and the map h names, when they are not shown.
func (r *Reader) show(ctx context.Context, h domain.Head) error {
	cur := r.board.Current()
	if h.ETag == "" || (cur != nil && cur.ETag == h.ETag && (h.MapETag == "" || (cur.Map != nil && cur.Map.ETag == h.MapETag))) {
		return nil
	}
	next := &Rendered{}
	if cur != nil {
		*next = *cur
	}
	if cur == nil || cur.ETag != h.ETag {
		_, raw, ok, err := r.renderings.Document(ctx)
		if err != nil || !ok {
			return fmt.Errorf("read the stored document (found %v): %w", ok, err)
		}
		d, err := newRendered(raw)
		if err != nil {
			return err
		}
		next.JSON, next.Gzip, next.ETag = d.JSON, d.Gzip, d.ETag
	}
	if h.MapETag != "" && (cur == nil || cur.Map == nil || cur.Map.ETag != h.MapETag) {
		_, raw, ok, err := r.renderings.Map(ctx)
		if err != nil || !ok {
			return fmt.Errorf("read the stored map (found %v): %w", ok, err)
		}
		if next.Map, err = newRendered(raw); err != nil {
			return err
		}
	}
	r.board.publish(next)
	return nil
}
