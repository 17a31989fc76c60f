package http

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"path"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/problem"
)

// The web board's scripts (GET /board/:file) and its whole map
// (GET /api/world/bulletin/map). The page works without them; with them it
// follows the live stream and draws every claimed plot.

//go:embed templates/live.js templates/map.js
var scriptFiles embed.FS

// boardScript is one script with its tag, fixed for the life of the binary.
type boardScript struct {
	body []byte
	etag string
}

var boardScripts = loadBoardScripts()

func loadBoardScripts() map[string]boardScript {
	out := map[string]boardScript{}
	entries, err := scriptFiles.ReadDir("templates")
	if err != nil {
		panic(err)
	}
	for _, e := range entries {
		if path.Ext(e.Name()) != ".js" {
			continue
		}
		b, err := scriptFiles.ReadFile("templates/" + e.Name())
		if err != nil {
			panic(err)
		}
		sum := sha256.Sum256(b)
		out[e.Name()] = boardScript{body: b, etag: `"` + hex.EncodeToString(sum[:16]) + `"`}
	}
	return out
}

func (h *Handlers) boardScript(c *fiber.Ctx) error {
	s, ok := boardScripts[c.Params("file")]
	if !ok {
		return problem.NotFound("No such script of the web board.", "The board's scripts are /board/live.js and /board/map.js.")
	}
	c.Set(fiber.HeaderETag, s.etag)
	// A new release changes a script under the same name: revalidate.
	c.Set(fiber.HeaderCacheControl, "public, no-cache")
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	if httpx.ETagMatches(c.Get(fiber.HeaderIfNoneMatch), s.etag) {
		return c.SendStatus(fiber.StatusNotModified)
	}
	c.Set(fiber.HeaderContentType, "text/javascript; charset=utf-8")
	return c.Send(s.body)
}

// boardMap serves the occupancy bitmap of every claimed plot from memory:
// 125,000 bytes, cell (x, y) the bit y*1000+x, most significant bit first;
// gzip on Accept-Encoding (a sparse map compresses to little), its own
// ETag and If-None-Match → 304.
func (h *Handlers) boardMap(c *fiber.Ctx) error {
	r := h.Board.Current()
	if r == nil || r.Map == nil {
		return problem.Unavailable("The bulletin is still loading.", "Retry in a moment.")
	}
	m := r.Map
	c.Set(fiber.HeaderETag, m.ETag)
	c.Set(fiber.HeaderCacheControl, "public, max-age=5")
	c.Set(fiber.HeaderVary, fiber.HeaderAcceptEncoding)
	if httpx.ETagMatches(c.Get(fiber.HeaderIfNoneMatch), m.ETag) {
		return c.SendStatus(fiber.StatusNotModified)
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEOctetStream)
	body := m.JSON
	if httpx.AcceptsGzip(c.Get(fiber.HeaderAcceptEncoding)) {
		c.Set(fiber.HeaderContentEncoding, "gzip")
		body = m.Gzip
	}
	c.Response().SetBodyRaw(body)
	return nil
}
