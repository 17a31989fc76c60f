package app

import (
	"context"
	"log/slog"
	"time"

	"sharedworld.dev/services/bulletin/internal/domain"
)

// Signal tells every reader where the aggregator has got. A signal may be
// lost (the store stays the truth, and readers check the stored head now
// and then); it only saves them from asking the database on every request.
type Signal interface {
	Send(ctx context.Context, h domain.Head) error
}

// HeadKeeper is the leader's side of the readers' feed: after items are
// settled or the document is rendered again, it stores the document and
// the map the head names, then the head, then signals it. Storing the
// bytes before the head that names them means a reader that learns a head
// finds what it names.
type HeadKeeper struct {
	Store  domain.RenderingStore
	Signal Signal
	Board  *Board
	Hub    *Hub
	Term   int64
	Log    *slog.Logger

	doc, mapTag string
	lastDoc     time.Time
	covers      int64 // the stored document's Covers
	last        domain.Head
}

// documentInterval is the least time between two stored documents: the
// document is up to 1 MiB and cached by clients for 5 s, so a burst of
// renderings costs a few writes, while the feed's head goes out at once.
const documentInterval = 250 * time.Millisecond

// Run keeps the head until ctx ends.
func (k *HeadKeeper) Run(ctx context.Context) {
	var later <-chan time.Time
	for {
		wait, err := k.keep(ctx)
		if err != nil && ctx.Err() == nil {
			k.Log.Warn("store the bulletin's head", slog.String("error", err.Error()))
			wait = 100 * time.Millisecond
		}
		later = nil
		if wait > 0 {
			later = time.After(wait)
		}
		select {
		case <-ctx.Done():
			return
		case <-k.Hub.Settled():
		case <-k.Board.Changed():
		case <-later:
		}
	}
}

// keep stores and signals what changed; wait > 0 asks to be called again
// then, for a document held back by documentInterval.
func (k *HeadKeeper) keep(ctx context.Context) (wait time.Duration, err error) {
	switch r := k.Board.Current(); {
	case r == nil:
	case r.ETag == k.doc:
		// A rendering equal to the stored document shows what it shows:
		// the changes since (a repeated announcement, say) left the
		// document as it was, and the head may name their items.
		k.covers = max(k.covers, r.Covers)
	default:
		if since := time.Since(k.lastDoc); since < documentInterval {
			wait = documentInterval - since
		} else {
			if r.Map != nil && r.Map.ETag != k.mapTag {
				if err := k.Store.SaveMap(ctx, k.Term, r.Map.ETag, r.Map.JSON); err != nil {
					return 0, err
				}
				k.mapTag = r.Map.ETag
			}
			if err := k.Store.SaveDocument(ctx, k.Term, r.ETag, r.JSON); err != nil {
				return 0, err
			}
			k.doc, k.lastDoc, k.covers = r.ETag, time.Now(), r.Covers
		}
	}
	if k.doc == "" {
		return wait, nil // no head before this term's first document
	}
	// The head goes no further than the stored document shows, so that a
	// reader, which shows the head's document before it sends the head's
	// items, never sends an item whose change its document lacks (a board
	// refreshing on the item would read a bulletin without it).
	h := domain.Head{Settled: min(k.Hub.Released(), k.covers), ETag: k.doc, MapETag: k.mapTag}
	if h == k.last {
		return wait, nil
	}
	if err := k.Store.SaveHead(ctx, k.Term, h); err != nil {
		return 0, err
	}
	k.last = h
	if err := k.Signal.Send(ctx, h); err != nil && ctx.Err() == nil {
		// readers find the stored head at their next check
		k.Log.Warn("signal the bulletin's head", slog.String("error", err.Error()))
	}
	return wait, nil
}
