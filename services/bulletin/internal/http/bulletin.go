package http

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/services/bulletin/internal/app"
)

// bulletin serves the rendered document from memory: no database, no other
// service, no encoding on the request path (CONTRACT §6). A large document
// leaves by sendfile (httpx.SendStatic).
func (h *Handlers) bulletin(c *fiber.Ctx) error {
	r := h.Board.Current()
	if r == nil {
		return problem.Unavailable("The bulletin is still loading.", "Retry in a moment.")
	}
	c.Set(fiber.HeaderETag, r.ETag)
	c.Set(fiber.HeaderCacheControl, "public, max-age=5")
	c.Set(fiber.HeaderVary, fiber.HeaderAcceptEncoding)
	if etagMatches(c.Get(fiber.HeaderIfNoneMatch), r.ETag) {
		return c.SendStatus(fiber.StatusNotModified)
	}
	c.Set(fiber.HeaderContentType, httpx.ContentTypeJSON)
	d := h.docCache.of(h.Board, r)
	body := d.json
	if acceptsGzip(c.Get(fiber.HeaderAcceptEncoding)) {
		c.Set(fiber.HeaderContentEncoding, "gzip")
		body = d.gzip
	}
	httpx.SendStatic(c, body)
	return nil
}

// docCache holds the latest rendering as static bodies; reads never lock.
type docCache struct {
	mu  sync.Mutex // serialises building, so a change builds once
	doc atomic.Pointer[servedDoc]
}

type servedDoc struct {
	source     *app.Rendered
	json, gzip *httpx.StaticBody
}

// of returns the static bodies of r, built on the first request that sees
// it. The bodies they replace are retired: responses still sending them
// finish first.
func (d *docCache) of(board *app.Board, r *app.Rendered) *servedDoc {
	if s := d.doc.Load(); s != nil && s.source == r {
		return s
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	old := d.doc.Load()
	if old != nil && old.source == r {
		return old
	}
	s := &servedDoc{source: r, json: httpx.NewStaticBody(r.JSON), gzip: httpx.NewStaticBody(r.Gzip)}
	// A request holding an older rendering serves it without keeping it:
	// only a newer one replaces the cached one.
	if board.Current() != r {
		s.json.Retire()
		s.gzip.Retire()
		return s
	}
	d.doc.Store(s)
	if old != nil {
		old.json.Retire()
		old.gzip.Retire()
	}
	return s
}

// etagMatches applies If-None-Match (RFC 9110 §13.1.2): a list of tags,
// weak comparison, or "*".
func etagMatches(header, etag string) bool {
	if header == "" {
		return false
	}
	for _, tag := range strings.Split(header, ",") {
		tag = strings.TrimSpace(tag)
		if tag == "*" || strings.TrimPrefix(tag, "W/") == etag {
			return true
		}
	}
	return false
}

// acceptsGzip reads Accept-Encoding: gzip (or *) with a quality above zero.
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if name != "gzip" && name != "*" {
			continue
		}
		q := strings.ReplaceAll(strings.ToLower(params), " ", "")
		if q == "q=0" || q == "q=0.0" || q == "q=0.00" || q == "q=0.000" {
			return false
		}
		return true
	}
	return false
}
