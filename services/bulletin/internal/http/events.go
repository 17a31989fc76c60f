package http

import (
	"bufio"
	"context"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/services/bulletin/internal/app"
	"sharedworld.dev/services/bulletin/internal/domain"
)

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
		if after, err = h.pageAfter(c.UserContext(), raw); err != nil {
			return err
		}
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
		cur := h.cursorOf(items[len(items)-1])
		page.Next = &cur
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"events": views, "pagination": page})
}

// catchUpPage is how many stored items one read of a resume fetches.
const catchUpPage = 500

// stream serves the feed as Server-Sent Events. A client that sends
// Last-Event-ID first gets the items after it from the store, up to where
// its subscription starts, then the live items. The hub sends only stored
// items, in stream order, and tells the subscription where it starts
// (Subscription.After), so the store holds everything up to there and the
// subscription everything after: no gap and no repeat, however the writes
// and the resume interleave. Without Last-Event-ID the stream starts with
// the next item.
func (h *Handlers) stream(c *fiber.Ctx, typ domain.FeedType) error {
	resumeFrom := int64(-1)
	raw := c.Get("Last-Event-ID")
	if raw == "" {
		raw = c.Query("last_event_id")
	}
	if raw != "" {
		var err error
		if resumeFrom, err = h.resumeAfter(raw); err != nil {
			return err
		}
	}
	sub, err := h.Feed.Hub().SubscribeAfter(resumeFrom)
	if err != nil {
		return problem.Unavailable("The live feed has as many clients as it serves.", "Retry in a few seconds, or poll GET /api/world/events.")
	}
	c.Set(fiber.HeaderContentType, "text/event-stream; charset=utf-8")
	c.Set(fiber.HeaderCacheControl, "no-cache")
	c.Set("X-Accel-Buffering", "no")
	s := &sse{feed: h.Feed, typ: typ, heartbeat: h.Heartbeat, cursor: h.cursorOf, frames: &h.frames,
		conn: c.Context().Conn(), writeTimeout: c.App().Server().WriteTimeout}
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
	cursor    func(domain.StoredFeedEntry) string
	frames    *frameCache
	last      int64 // highest seq sent (or skipped by the type filter)
	// The server's write timeout bounds a whole answer from the moment it
	// starts: applied to a stream, it would cut every stream mid-flow
	// after that long. A stream instead gives each message that long to
	// reach the client (see expect): it stays open while the client
	// reads, and a client that stops reading is cut.
	conn         deadlineSetter
	writeTimeout time.Duration
}

type deadlineSetter interface{ SetWriteDeadline(time.Time) error }

// expect moves the connection's write deadline to one write timeout from
// now, before a message is written.
func (s *sse) expect() {
	if s.conn != nil && s.writeTimeout > 0 {
		_ = s.conn.SetWriteDeadline(time.Now().Add(s.writeTimeout))
	}
}

// run writes the stream until the client goes away, the hub drops it, or
// the service stops. Every exit ends the response; the client reconnects
// with Last-Event-ID.
func (s *sse) run(ctx context.Context, w *bufio.Writer, sub *app.Subscription, resumeFrom int64) {
	s.expect()
	if _, err := w.WriteString("retry: 2000\n\n"); err != nil || w.Flush() != nil {
		return
	}
	s.last = sub.After
	if resumeFrom >= 0 && resumeFrom < sub.After {
		s.last = resumeFrom
		if !s.catchUp(ctx, w, sub) {
			return
		}
	} else if resumeFrom > sub.After {
		s.last = resumeFrom // nothing stored after it yet
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
			if !s.writeLive(w, item, sub) || w.Flush() != nil {
				return
			}
		case <-tick.C:
			s.expect()
			if _, err := w.WriteString(": heartbeat\n\n"); err != nil || w.Flush() != nil {
				return
			}
		}
	}
}

// writeLive writes a live item and every item already waiting behind it,
// so that a burst (a head's worth of items) costs a follower one flush,
// not one per item.
func (s *sse) writeLive(w *bufio.Writer, item app.StreamItem, sub *app.Subscription) bool {
	for {
		if item.Seq > s.last { // otherwise sent while catching up
			if !s.write(w, item) {
				return false
			}
		}
		select {
		case next, open := <-sub.C:
			if !open { // dropped: send what came before, then end
				_ = w.Flush()
				return false
			}
			item = next
		default:
			return true
		}
	}
}

// catchUp sends the items after s.last up to the subscription's start,
// where the live items begin: from the hub's memory when it still holds
// them all, otherwise from the store.
func (s *sse) catchUp(ctx context.Context, w *bufio.Writer, sub *app.Subscription) bool {
	upTo := sub.After
	if sub.Covered {
		for _, item := range sub.Backlog {
			if !s.write(w, item) {
				return false
			}
		}
		return w.Flush() == nil
	}
	for s.last < upTo {
		page, err := s.feed.Since(ctx, s.last, catchUpPage)
		if err != nil {
			return false
		}
		for _, e := range page {
			if e.Seq > upTo {
				return w.Flush() == nil // the subscription has it
			}
			if !s.write(w, e) {
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
	return true
}

// write sends one item (or only advances past it, when the type filter
// leaves it out) and reports whether the client is still there.
func (s *sse) write(w *bufio.Writer, e domain.StoredFeedEntry) bool {
	s.last = e.Seq
	if s.typ != "" && e.Item.Type != s.typ {
		return true
	}
	s.expect()
	b, err := s.frames.get(e, s.cursor)
	if err != nil {
		return false
	}
	_, err = w.Write(b)
	return err == nil
}
