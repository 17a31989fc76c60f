package http

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html/template"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/services/bulletin/internal/app"
	"sharedworld.dev/services/bulletin/internal/domain"
)

// The web board (CONTRACT §9): the bulletin for people, rendered from the
// same in-memory document as GET /api/world/bulletin. A page is rendered
// once per rendering of the document and kept with its gzip form, so a
// request is a pointer comparison and a copy, like the JSON bulletin.

const (
	contentTypeHTML = "text/html; charset=utf-8"
	// boardPolicy allows the page its inline style, inline images, its own
	// scripts and their reads of this origin (the stream, the bulletin, the
	// map), nothing else: no inline script, no frame, no remote resource.
	boardPolicy = "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
	// gridSize is the side of the world's grid (CONTRACT §4: 0 ≤ x, y ≤ 999).
	gridSize = domain.GridSide
	// cell is the side of one grid cell in map units.
	cell = 10
)

//go:embed templates/board.html
var boardFiles embed.FS

var boardTemplate = template.Must(template.New("board.html").Funcs(template.FuncMap{
	"abbr": domain.AbbreviateAgentID,
	"when": when,
}).ParseFS(boardFiles, "templates/board.html"))

// boardPage is one rendered page; never modified once published.
type boardPage struct {
	source string // the ETag of the document it was rendered from
	etag   string
	html   []byte
	gzip   []byte
}

// boardCache holds the page of the latest rendering; reads never lock.
type boardCache struct {
	mu   sync.Mutex // serialises rendering, so a burst renders once
	page atomic.Pointer[boardPage]
}

// board serves the web board from memory: no database, no other service.
func (h *Handlers) board(c *fiber.Ctx) error {
	r := h.Board.Current()
	if r == nil {
		return problem.Unavailable("The bulletin is still loading.", "Retry in a moment.")
	}
	p, err := h.boardPage(r)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderETag, p.etag)
	c.Set(fiber.HeaderCacheControl, "public, max-age=5")
	c.Set(fiber.HeaderVary, fiber.HeaderAcceptEncoding)
	c.Set(fiber.HeaderContentSecurityPolicy, boardPolicy)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderReferrerPolicy, "no-referrer")
	if httpx.ETagMatches(c.Get(fiber.HeaderIfNoneMatch), p.etag) {
		return c.SendStatus(fiber.StatusNotModified)
	}
	c.Set(fiber.HeaderContentType, contentTypeHTML)
	body := p.html
	if httpx.AcceptsGzip(c.Get(fiber.HeaderAcceptEncoding)) {
		c.Set(fiber.HeaderContentEncoding, "gzip")
		body = p.gzip
	}
	c.Response().SetBodyRaw(body)
	return nil
}

// boardPage returns the page of rendering r, rendering it on first use.
func (h *Handlers) boardPage(r *app.Rendered) (*boardPage, error) {
	if p := h.boardCache.page.Load(); p != nil && p.source == r.ETag {
		return p, nil
	}
	h.boardCache.mu.Lock()
	defer h.boardCache.mu.Unlock()
	if p := h.boardCache.page.Load(); p != nil && p.source == r.ETag {
		return p, nil
	}
	p, err := renderBoard(r)
	if err != nil {
		return nil, fmt.Errorf("web board: %w", err)
	}
	// A request holding an older rendering must not replace a newer page.
	if h.Board.Current() == r {
		h.boardCache.page.Store(p)
	}
	return p, nil
}

func renderBoard(r *app.Rendered) (*boardPage, error) {
	var doc domain.Bulletin
	if err := json.Unmarshal(r.JSON, &doc); err != nil {
		return nil, err
	}
	var html bytes.Buffer
	if err := boardTemplate.Execute(&html, newBoardView(doc)); err != nil {
		return nil, err
	}
	var gz bytes.Buffer
	zw, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(html.Bytes()); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(html.Bytes())
	return &boardPage{source: r.ETag, etag: `"` + hex.EncodeToString(sum[:16]) + `"`, html: html.Bytes(), gzip: gz.Bytes()}, nil
}

// boardView is what the template shows.
type boardView struct {
	Doc domain.Bulletin
	// Announcements are the recent ones but the pinned one, shown above.
	Announcements []domain.AnnouncementView
	Map           boardMap
	Links         []boardLink
}

type boardLink struct{ Name, Path string }

// boardMap is the map of claimed plots: the grid cut to the bounding box of
// the plots (the commons included) plus a margin, in map units of cell per
// grid cell.
type boardMap struct {
	ViewBox                string
	MinX, MinY, MaxX, MaxY int // the grid cells shown
	Size                   int // the side of a plot's square
	Ring                   int // the radius of the ring around the commons
	World                  int // the side of the whole grid
	Commons                mapPlot
	Plots                  []mapPlot
}

type mapPlot struct {
	X, Y    int // the top left corner of the square
	CX, CY  int // the centre of the cell
	Title   string
	Commons bool
}

func newBoardView(doc domain.Bulletin) boardView {
	v := boardView{Doc: doc, Map: newBoardMap(doc.Plots)}
	for _, a := range doc.Announcements {
		if doc.PinnedAnnouncement == nil || a.PostID != doc.PinnedAnnouncement.PostID {
			v.Announcements = append(v.Announcements, a)
		}
	}
	links := reflect.ValueOf(doc.Links)
	for i := range links.NumField() {
		v.Links = append(v.Links, boardLink{Name: links.Type().Field(i).Tag.Get("json"), Path: links.Field(i).String()})
	}
	return v
}

func newBoardMap(plots []domain.PlotView) boardMap {
	minX, minY, maxX, maxY := 0, 0, 0, 0 // the commons is always on the map
	for _, p := range plots {
		minX, minY = min(minX, p.X), min(minY, p.Y)
		maxX, maxY = max(maxX, p.X), max(maxY, p.Y)
	}
	w, h := maxX-minX+1, maxY-minY+1
	margin := max(2, max(w, h)/10)
	w, h = w+2*margin, h+2*margin
	// Neither side less than half the other, so a row of plots is no sliver.
	w, h = max(w, h/2), max(h, w/2)
	// Centre the box on the plots; the margin may reach past the grid's
	// edge, which the map shows.
	x0 := (minX+maxX+1)/2 - w/2
	y0 := (minY+maxY+1)/2 - h/2
	m := boardMap{
		ViewBox: fmt.Sprintf("%d %d %d %d", x0*cell, y0*cell, w*cell, h*cell),
		MinX:    max(x0, 0), MinY: max(y0, 0),
		MaxX: min(x0+w, gridSize) - 1, MaxY: min(y0+h, gridSize) - 1,
		World: gridSize * cell,
		// A plot stays visible when the box is wide: its square grows with
		// the box, at least one cell.
		Size: max(cell, max(w, h)*cell/100),
	}
	m.Ring = m.Size
	for _, p := range plots {
		name := "no name"
		if p.DisplayName != nil && *p.DisplayName != "" {
			name = *p.DisplayName
		}
		mp := mapPlot{
			CX: p.X*cell + cell/2, CY: p.Y*cell + cell/2,
			Title:   fmt.Sprintf("%s — %s (%d, %d)", p.PlotID, name, p.X, p.Y),
			Commons: p.PlotID == domain.CommonsPlotID,
		}
		mp.X, mp.Y = mp.CX-m.Size/2, mp.CY-m.Size/2
		m.Plots = append(m.Plots, mp)
	}
	m.Commons = mapPlot{CX: cell / 2, CY: cell / 2, Title: "The commons (0, 0)", Commons: true}
	return m
}

// when shows a contract timestamp to people: minutes, UTC.
func when(ts string) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ts
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}
