package http

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/services/bulletin/internal/app"
	"sharedworld.dev/services/bulletin/internal/domain"
)

// pageCursor is a position in the newest-first pages.
type pageCursor struct {
	At int64  `json:"at"` // Unix milliseconds
	ID string `json:"id"` // event id
}

// streamCursor is a position in the live stream: the `id:` of each message
// and what Last-Event-ID sends back. The epoch ties it to one numbering of
// the stream; a rebuild renumbers it.
type streamCursor struct {
	Epoch string `json:"e"`
	Seq   int64  `json:"s"`
}

func (h *Handlers) events(c *fiber.Ctx) error {
	var typ domain.FeedType
	if raw := c.Query("type"); raw != "" {
		t, err := domain.ParseFeedType(raw)
		if err != nil {
			return err
		}
		typ = t
	}
	if strings.Contains(c.Get(fiber.HeaderAccept), "text/event-stream") {
		return h.stream(c, typ)
	}
	limit, err := httpx.Limit(c)
	if err != nil {
		return err
	}
	var after *domain.FeedPageKey
	if raw := c.Query("cursor"); raw != "" {
		var pos pageCursor
		if err := httpx.DecodeCursor(raw, &pos); err != nil {
			return err
		}
		if pos.ID == "" {
			return problem.Invalid("Unknown cursor.", "Pass back the pagination.next value of the previous page unchanged, or omit cursor for the first page.")
		}
		after = &domain.FeedPageKey{At: time.UnixMilli(pos.At).UTC(), EventID: pos.ID}
	}
	items, next, err := h.Feed.Page(c.UserContext(), typ, after, limit)
	if err != nil {
		return err
	}
	views := make([]domain.FeedItemView, len(items))
	for i, e := range items {
		views[i] = e.Item.View()
	}
	page := httpx.Pagination{Limit: limit, Count: len(views)}
	if next != nil {
		cur := httpx.EncodeCursor(pageCursor{At: next.At.UnixMilli(), ID: next.EventID})
		page.Next = &cur
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"events": views, "pagination": page})
}

// catchUpPage is how many stored items one read of a resume fetches.
const catchUpPage = 500

// stream serves the feed as Server-Sent Events. A client that sends
// Last-Event-ID first gets every item after it from the store, then the
// live items; it subscribes before reading the store and skips live items
// it already sent, so there is no gap and no repeat. Without Last-Event-ID
// the stream starts with the next item.
func (h *Handlers) stream(c *fiber.Ctx, typ domain.FeedType) error {
	resumeFrom := int64(-1)
	raw := c.Get("Last-Event-ID")
	if raw == "" {
		raw = c.Query("last_event_id")
	}
	if raw != "" {
		var pos streamCursor
		if err := httpx.DecodeCursor(raw, &pos); err != nil {
			return err
		}
		// A cursor of an older numbering (before a rebuild) cannot be
		// placed; such a client continues with the live items.
		if pos.Epoch == h.Feed.Epoch() {
			resumeFrom = pos.Seq
		}
	}
	sub, err := h.Feed.Hub().Subscribe()
	if err != nil {
		return problem.Unavailable("The live feed has as many clients as it serves.", "Retry in a few seconds, or poll GET /api/world/events.")
	}
	c.Set(fiber.HeaderContentType, "text/event-stream; charset=utf-8")
	c.Set(fiber.HeaderCacheControl, "no-cache")
	c.Set("X-Accel-Buffering", "no")
	s := &sse{feed: h.Feed, typ: typ, heartbeat: h.Heartbeat}
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		defer sub.Close()
		s.run(h.Streams, w, sub, resumeFrom)
	})
	return nil
}

type sse struct {
	feed      *app.Feed
	typ       domain.FeedType
	heartbeat time.Duration
	last      int64 // highest seq sent (or skipped by the type filter)
}

// run writes the stream until the client goes away, the hub drops it, or
// the service stops. Every exit ends the response; the client reconnects
// with Last-Event-ID.
func (s *sse) run(ctx context.Context, w *bufio.Writer, sub *app.Subscription, resumeFrom int64) {
	if _, err := w.WriteString("retry: 2000\n\n"); err != nil || w.Flush() != nil {
		return
	}
	if resumeFrom >= 0 {
		s.last = resumeFrom
		if !s.catchUp(ctx, w) {
			return
		}
	}
	tick := time.NewTicker(s.heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case item, open := <-sub.C:
			if !open {
				return
			}
			if item.Seq <= s.last {
				continue // already sent while catching up
			}
			if !s.write(w, item.Seq, item.Item) || w.Flush() != nil {
				return
			}
		case <-tick.C:
			if _, err := w.WriteString(": heartbeat\n\n"); err != nil || w.Flush() != nil {
				return
			}
		}
	}
}

func (s *sse) catchUp(ctx context.Context, w *bufio.Writer) bool {
	for {
		page, err := s.feed.Since(ctx, s.last, catchUpPage)
		if err != nil {
			return false
		}
		for _, e := range page {
			if !s.write(w, e.Seq, e.Item.View()) {
				return false
			}
		}
		if w.Flush() != nil {
			return false
		}
		if len(page) < catchUpPage {
			return true
		}
	}
}

// write sends one item (or only advances past it, when the type filter
// leaves it out) and reports whether the client is still there.
func (s *sse) write(w *bufio.Writer, seq int64, item domain.FeedItemView) bool {
	s.last = seq
	if s.typ != "" && item.Type != s.typ {
		return true
	}
	var data bytes.Buffer
	enc := json.NewEncoder(&data)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(item); err != nil {
		return false
	}
	id := httpx.EncodeCursor(streamCursor{Epoch: s.feed.Epoch(), Seq: seq})
	_, err := fmt.Fprintf(w, "id: %s\ndata: %s\n\n", id, bytes.TrimSuffix(data.Bytes(), []byte("\n")))
	return err == nil
}
