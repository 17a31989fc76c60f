package http

import (
	"encoding/base64"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/ratelimit"
	"sharedworld.dev/services/plots-storage/internal/app"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

type writeRequest struct {
	PlotID      string  `json:"plot_id"`
	Path        string  `json:"path"`
	Content     *string `json:"content"`
	ContentType string  `json:"content_type"`
}

type receiptJSON struct {
	PlotID      string `json:"plot_id"`
	Path        string `json:"path"`
	SizeBytes   int64  `json:"size_bytes"`
	ContentHash string `json:"content_hash"`
	WrittenAt   string `json:"written_at"`
	Version     uint64 `json:"version"`
	// Verb is planted or tended for garden writes.
	Verb string `json:"verb,omitempty"`
}

func (h *Handlers) write(c *fiber.Ctx) error {
	var req writeRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	var planting ratelimit.Taken
	if req.PlotID == domain.CommonsPlotID {
		// The garden is everyone's: plantings have a budget of their own.
		var err error
		if planting, err = h.Limits.Take(c, ratelimit.GardenPlantings, agentOf(c).ID); err != nil {
			return err
		}
	}
	r, err := h.App.Write(c.UserContext(), agentOf(c), app.WriteRequest{
		PlotID: req.PlotID, Path: req.Path, Content: req.Content, ContentType: req.ContentType,
	})
	if err != nil {
		planting.Give(c.UserContext()) // a refused write is no planting
		return err
	}
	f := r.File
	return httpx.OK(c, fiber.StatusCreated, fiber.Map{"receipt": receiptJSON{
		PlotID: f.PlotID, Path: f.Path, SizeBytes: f.Size, ContentHash: f.Hash,
		WrittenAt: clock.Timestamp(f.WrittenAt), Version: f.Version, Verb: string(r.Verb),
	}})
}

type fileRef struct {
	PlotID string `json:"plot_id"`
	Path   string `json:"path"`
}

func (h *Handlers) readPost(c *fiber.Ctx) error {
	var req fileRef
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	return h.read(c, req)
}

func (h *Handlers) readGet(c *fiber.Ctx) error {
	return h.read(c, fileRef{PlotID: c.Query("plot_id"), Path: c.Query("path")})
}

func (h *Handlers) read(c *fiber.Ctx, ref fileRef) error {
	f, data, err := h.App.Read(c.UserContext(), readerID(c), ref.PlotID, ref.Path)
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{
		"plot_id": f.PlotID, "path": f.Path, "content": base64.StdEncoding.EncodeToString(data),
		"content_type": f.ContentType, "size_bytes": f.Size, "content_hash": f.Hash,
		"written_at": clock.Timestamp(f.WrittenAt), "written_by": f.WrittenBy, "version": f.Version,
	})
}

// list answers from the kept answer of the listing's version when the
// store keeps versions (keptLists), else encodes it.
func (h *Handlers) list(c *fiber.Ctx) error {
	plotID, prefix := c.Query("plot_id"), c.Query("prefix")
	l, err := h.App.OpenList(c.UserContext(), readerID(c), plotID, prefix)
	if err != nil {
		return err
	}
	encode := func() ([]byte, error) {
		files, err := h.App.ListFiles(c.UserContext(), l)
		if err != nil {
			return nil, err
		}
		return encodeList(plotID, prefix, files, len(files), nil), nil
	}
	c.Set(fiber.HeaderVary, fiber.HeaderAcceptEncoding)
	if c.Query("limit") != "" || c.Query("cursor") != "" {
		return h.listPage(c, l)
	}
	if !l.Versioned {
		b, err := encode()
		if err != nil {
			return err
		}
		c.Set(fiber.HeaderContentType, httpx.ContentTypeJSON)
		return c.Send(b)
	}
	kept, err := h.lists.answer(plotID, l, encode)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, httpx.ContentTypeJSON)
	body := kept.body
	if len(body.Bytes()) >= keptListMin && httpx.AcceptsGzip(c.Get(fiber.HeaderAcceptEncoding)) {
		c.Set(fiber.HeaderContentEncoding, "gzip")
		body = h.lists.gzipped(kept)
	}
	httpx.SendStatic(c.Context(), body)
	return nil
}

// listCursor is a page's position: the last path it listed.
type listCursor struct {
	After string `json:"after"`
}

// listPage answers one page of the listing, for a caller that asked for
// pages (limit or cursor); the whole list stays the default answer.
func (h *Handlers) listPage(c *fiber.Ctx, l app.Listing) error {
	limit, err := httpx.Limit(c)
	if err != nil {
		return err
	}
	var at listCursor
	if raw := c.Query("cursor"); raw != "" {
		if err := httpx.DecodeCursor(raw, &at); err != nil {
			return err
		}
		// The list makes cursors of paths only: anything else was made up
		// (an empty one would start over at the first page).
		if domain.ValidatePath(at.After) != nil {
			return httpx.UnknownCursor()
		}
	}
	// One more than the page says whether another follows.
	files, total, err := h.App.ListPage(c.UserContext(), l, at.After, limit+1)
	if err != nil {
		return err
	}
	page := &httpx.Pagination{Limit: limit}
	if len(files) > limit {
		files = files[:limit]
		next := httpx.EncodeCursor(listCursor{After: files[limit-1].Path})
		page.Next = &next
	}
	page.Count = len(files)
	c.Set(fiber.HeaderContentType, httpx.ContentTypeJSON)
	return c.Send(encodeList(c.Query("plot_id"), l.Prefix, files, total, page))
}

// encodeList is appendList into a buffer of about the answer's size
// (some 230 bytes an entry in the garden).
func encodeList(plotID, prefix string, files []domain.File, total int, page *httpx.Pagination) []byte {
	return appendList(make([]byte, 0, 256*len(files)+256), plotID, prefix, files, total, page)
}

func (h *Handlers) delete(c *fiber.Ctx) error {
	var req fileRef
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	f, err := h.App.Delete(c.UserContext(), agentOf(c), req.PlotID, req.Path)
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"plot_id": f.PlotID, "path": f.Path, "deleted": true})
}
