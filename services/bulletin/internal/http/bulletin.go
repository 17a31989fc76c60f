package http

import (
	"sync"
	"sync/atomic"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/services/bulletin/internal/app"
)

// bulletin serves the rendered document from memory: no database, no other
// service, no encoding on the request path (CONTRACT §6). The document is
// also served ahead of Fiber (httpx.DocumentGET); this route answers what
// that declines: before the first rendering, and requests of another shape.
func (h *Handlers) bulletin(c *fiber.Ctx) error {
	d := h.document()
	if d == nil {
		return problem.Unavailable("The bulletin is still loading.", "Retry in a moment.")
	}
	httpx.ServeDocument(c.Context(), d)
	return nil
}

// document is the current rendering as served, nil before the first.
func (h *Handlers) document() *httpx.Document {
	r := h.Board.Current()
	if r == nil {
		return nil
	}
	return h.docCache.of(h.Board, r)
}

// docCache holds the latest rendering as a served document; reads never lock.
type docCache struct {
	mu  sync.Mutex // serialises building, so a change builds once
	doc atomic.Pointer[servedDoc]
}

type servedDoc struct {
	source *app.Rendered
	doc    *httpx.Document
}

// of returns the served document of r, built on the first request that
// sees it. The document it replaces is retired: responses still sending
// it finish first.
func (d *docCache) of(board *app.Board, r *app.Rendered) *httpx.Document {
	if s := d.doc.Load(); s != nil && s.source == r {
		return s.doc
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	old := d.doc.Load()
	if old != nil && old.source == r {
		return old.doc
	}
	s := &servedDoc{source: r, doc: httpx.NewDocument(r.ETag, "public, max-age=5", r.JSON, r.Gzip)}
	// A request holding an older rendering serves it without keeping it:
	// only a newer one replaces the cached one.
	if board.Current() != r {
		s.doc.Retire()
		return s.doc
	}
	d.doc.Store(s)
	if old != nil {
		old.doc.Retire()
	}
	return s.doc
}
