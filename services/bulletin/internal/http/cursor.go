package http

import (
	"context"
	"time"

	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/services/bulletin/internal/domain"
)

// feedCursor is the one cursor of the feed: the pages' pagination.next, the
// live stream's `id:` and what Last-Event-ID sends back. It names one item
// by both of its positions: its place in the newest-first pages (at, event
// id), from which a page goes on with the older items, and its place in the
// live stream (epoch, seq), after which a stream resumes. The epoch ties the
// seq to one numbering of the stream; a rebuild renumbers it.
//
// Cursors handed out before the two were one carry only one of the
// positions; each still works where it was made for, and a stream id (the
// epoch and seq alone) also works as a page cursor, by looking its item up.
type feedCursor struct {
	Epoch string `json:"e,omitempty"`
	Seq   int64  `json:"s,omitempty"`
	At    int64  `json:"at,omitempty"` // Unix milliseconds
	ID    string `json:"id,omitempty"` // event id
}

// cursorOf is the cursor naming a stored item.
func (h *Handlers) cursorOf(e domain.StoredFeedEntry) string {
	return h.cursorAt(e.Seq, e.Item.At, e.EventID)
}

func (h *Handlers) cursorAt(seq int64, at time.Time, eventID string) string {
	return httpx.EncodeCursor(feedCursor{Epoch: h.Feed.Epoch(), Seq: seq, At: at.UnixMilli(), ID: eventID})
}

func unknownCursor() error {
	return problem.Invalid("Unknown cursor.", "Pass back the pagination.next value of the previous page, or the id of a live-stream event, unchanged; or omit cursor for the first page.")
}

// pageAfter reads a cursor as the position a page goes on from.
func (h *Handlers) pageAfter(ctx context.Context, raw string) (*domain.FeedPageKey, error) {
	var pos feedCursor
	if err := httpx.DecodeCursor(raw, &pos); err != nil {
		return nil, err
	}
	if pos.ID != "" {
		return h.checkedPageKey(ctx, pos)
	}
	if pos.Epoch == "" || pos.Epoch != h.Feed.Epoch() || pos.Seq <= 0 {
		return nil, unknownCursor()
	}
	e, found, err := h.Feed.At(ctx, pos.Seq)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, unknownCursor()
	}
	return &domain.FeedPageKey{At: e.Item.At, EventID: e.EventID}, nil
}

// checkedPageKey accepts only a page position the world could have made:
// an event id of the world's shape and a time; when the cursor also
// carries this numbering's seq, the item stored under it must be the one
// the position names. A made-up position would otherwise page on from
// wherever it points, as if the world had handed it out.
func (h *Handlers) checkedPageKey(ctx context.Context, pos feedCursor) (*domain.FeedPageKey, error) {
	if pos.At <= 0 || !isEventID(pos.ID) {
		return nil, unknownCursor()
	}
	if pos.Epoch != "" && pos.Epoch == h.Feed.Epoch() && pos.Seq > 0 {
		e, found, err := h.Feed.At(ctx, pos.Seq)
		if err != nil {
			return nil, err
		}
		if !found || e.EventID != pos.ID || e.Item.At.UnixMilli() != pos.At {
			return nil, unknownCursor()
		}
	}
	return &domain.FeedPageKey{At: time.UnixMilli(pos.At).UTC(), EventID: pos.ID}, nil
}

// isEventID reports the shape of the world's event ids (the CloudEvents
// ce_id the outbox gives every event): 32 lowercase hex characters.
func isEventID(s string) bool {
	if len(s) != 32 {
		return false
	}
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// resumeAfter reads a Last-Event-ID as the stream position to resume after,
// or -1 when the cursor belongs to another numbering of the stream (before
// a rebuild) and cannot be placed: such a client continues with the live
// items.
func (h *Handlers) resumeAfter(raw string) (int64, error) {
	var pos feedCursor
	if err := httpx.DecodeCursor(raw, &pos); err != nil {
		return -1, err
	}
	if pos.Epoch == "" && pos.ID == "" {
		return -1, unknownCursor()
	}
	if pos.Epoch != h.Feed.Epoch() {
		return -1, nil
	}
	return pos.Seq, nil
}
