package http

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/problem"
)

// bulletin serves the rendered document from memory: no database, no other
// service, no encoding on the request path (CONTRACT §6).
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
	body := r.JSON
	if acceptsGzip(c.Get(fiber.HeaderAcceptEncoding)) {
		c.Set(fiber.HeaderContentEncoding, "gzip")
		body = r.Gzip
	}
	// The rendered bytes are never modified, so the response may use them
	// without a copy.
	c.Response().SetBodyRaw(body)
	return nil
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
