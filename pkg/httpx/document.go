package httpx

import (
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

// A Document is a JSON document served to every reader alike from memory
// (the bulletin): kept rendered and gzipped, with its entity tag. A GET of
// its route answers 304 to a matching If-None-Match, the gzip encoding to a
// client that accepts it, the identity encoding otherwise; every answer
// carries the tag, Cache-Control and Vary: Accept-Encoding.
type Document struct {
	etag         []byte // quoted
	cacheControl []byte
	json, gzip   *StaticBody
}

// NewDocument keeps the two encodings of one document, which the caller
// must never modify afterwards. etag is quoted ("…").
func NewDocument(etag, cacheControl string, json, gzip []byte) *Document {
	return &Document{etag: []byte(etag), cacheControl: []byte(cacheControl), json: newStaticDocumentBody(json), gzip: newStaticDocumentBody(gzip)}
}

// Retire gives up the document's in-memory files once it is replaced:
// responses still sending them finish first (StaticBody.Retire).
func (d *Document) Retire() {
	d.json.Retire()
	d.gzip.Retire()
}

// body is the encoding to send for an Accept-Encoding header.
func (d *Document) body(acceptEncoding string) (body *StaticBody, gzip bool) {
	if AcceptsGzip(acceptEncoding) {
		return d.gzip, true
	}
	return d.json, false
}

// ServeDocument answers the request in ctx with d (in a Fiber handler,
// pass c.Context()).
func ServeDocument(ctx *fasthttp.RequestCtx, d *Document) {
	// Headers by their canonical names from bytes kept with the document:
	// the name normalisation and string copies of c.Set were a tenth of a
	// small document's handler.
	hdr := &ctx.Response.Header
	hdr.SetCanonical(headerETag, d.etag)
	hdr.SetCanonical(headerCacheControl, d.cacheControl)
	hdr.SetCanonical(headerVary, headerAcceptEncoding)
	if ETagMatches(string(ctx.Request.Header.Peek(fiber.HeaderIfNoneMatch)), string(d.etag)) {
		ctx.SetStatusCode(fiber.StatusNotModified)
		return
	}
	hdr.SetContentTypeBytes(contentTypeJSON)
	body, gz := d.body(string(ctx.Request.Header.Peek(fiber.HeaderAcceptEncoding)))
	if gz {
		hdr.SetCanonical(headerContentEncoding, encodingGzip)
	}
	SendStatic(ctx, body)
}

// DocumentGET serves GET of path from the document current returns, ahead
// of Fiber and, on connections that ask only for documents, of fasthttp
// too (see Serve). current returns nil while there is none yet: the
// request then goes to the app's own route for path, which must exist.
func DocumentGET(app *fiber.App, path string, current func() *Document) {
	v, ok := fastApps.Load(app)
	if !ok {
		return
	}
	f := v.(*fastRoutes)
	f.add(path, fastRoute{path: path, current: current})
}

// ETagMatches applies If-None-Match (RFC 9110 §13.1.2) to a quoted tag:
// a list of tags, weak comparison, or "*".
func ETagMatches(header, etag string) bool {
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

var (
	headerETag            = []byte("Etag") // fasthttp's canonical form
	headerCacheControl    = []byte(fiber.HeaderCacheControl)
	headerVary            = []byte(fiber.HeaderVary)
	headerAcceptEncoding  = []byte(fiber.HeaderAcceptEncoding)
	headerContentEncoding = []byte(fiber.HeaderContentEncoding)
	contentTypeJSON       = []byte(ContentTypeJSON)
	encodingGzip          = []byte("gzip")
)
