package http

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/services/bulletin/internal/app"
)

// bulletin serves the rendered document from memory: no database, no other
// service, no encoding on the request path (CONTRACT §6). The same handler
// answers on httpx's fast path (FastGET); this route serves what it
// declines (before the first rendering) and requests it does not take.
func (h *Handlers) bulletin(c *fiber.Ctx) error {
	if !h.document(c.Context()) {
		return problem.Unavailable("The bulletin is still loading.", "Retry in a moment.")
	}
	return nil
}

// document writes the current document, or returns false before the first
// rendering. A large one leaves by sendfile (httpx.SendStatic).
func (h *Handlers) document(ctx *fasthttp.RequestCtx) bool {
	r := h.Board.Current()
	if r == nil {
		return false
	}
	d := h.docCache.of(h.Board, r)
	// Headers by their canonical names from bytes kept with the document:
	// the name normalisation and string copies of c.Set were a tenth of a
	// small document's handler.
	hdr := &ctx.Response.Header
	hdr.SetCanonical(headerETag, d.etag)
	hdr.SetCanonical(headerCacheControl, cacheControl)
	hdr.SetCanonical(headerVary, headerAcceptEncoding)
	if etagMatches(string(ctx.Request.Header.Peek(fiber.HeaderIfNoneMatch)), r.ETag) {
		ctx.SetStatusCode(fiber.StatusNotModified)
		return true
	}
	hdr.SetContentTypeBytes(contentTypeJSON)
	body := d.json
	if httpx.AcceptsGzip(string(ctx.Request.Header.Peek(fiber.HeaderAcceptEncoding))) {
		hdr.SetCanonical(headerContentEncoding, encodingGzip)
		body = d.gzip
	}
	httpx.SendStatic(ctx, body)
	return true
}

var (
	headerETag            = []byte("Etag") // fasthttp's canonical form
	headerCacheControl    = []byte(fiber.HeaderCacheControl)
	headerVary            = []byte(fiber.HeaderVary)
	headerAcceptEncoding  = []byte(fiber.HeaderAcceptEncoding)
	headerContentEncoding = []byte(fiber.HeaderContentEncoding)
	cacheControl          = []byte("public, max-age=5")
	contentTypeJSON       = []byte(httpx.ContentTypeJSON)
	encodingGzip          = []byte("gzip")
)

// docCache holds the latest rendering as static bodies; reads never lock.
type docCache struct {
	mu  sync.Mutex // serialises building, so a change builds once
	doc atomic.Pointer[servedDoc]
}

type servedDoc struct {
	source     *app.Rendered
	etag       []byte
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
	s := &servedDoc{source: r, etag: []byte(r.ETag), json: httpx.NewStaticBody(r.JSON), gzip: httpx.NewStaticBody(r.Gzip)}
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
	for tag := range strings.SplitSeq(header, ",") {
		tag = strings.TrimSpace(tag)
		if tag == "*" || strings.TrimPrefix(tag, "W/") == etag {
			return true
		}
	}
	return false
}
