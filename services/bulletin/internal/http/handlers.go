// Package http is the bulletin's Fiber adapter: the bulletin document, the
// web board, the feed (pages and live stream) and the ambassador's
// announcement routes.
package http

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/services/bulletin/internal/app"
)

// Handlers serves the bulletin's routes.
type Handlers struct {
	Board           *app.Board
	Feed            *app.Feed
	Announcements   *app.Announcements
	AmbassadorToken string
	// Heartbeat is the interval of the live stream's keep-alive comments.
	Heartbeat time.Duration
	// Streams is the context live streams run under; it ends at shutdown.
	Streams context.Context

	frames frameCache // the live stream's encoded items

	boardCache boardCache
	docCache   docCache
}

// Routes registers the public routes.
func (h *Handlers) Routes(r fiber.Router) {
	r.Get("/", h.board)
	r.Get("/board/:file", h.boardScript)
	r.Get("/api/world/bulletin", h.bulletin)
	r.Get("/api/world/bulletin/map", h.boardMap)
	if app, ok := r.(*fiber.App); ok {
		httpx.DocumentGET(app, "/api/world/bulletin", h.document)
	}
	r.Get("/api/world/events", h.events)
	ambassador := auth.Ambassador(h.AmbassadorToken)
	r.Post("/api/admin/announcements", ambassador, h.postAnnouncement)
	r.Post("/api/admin/announcements/:post_id/pin", ambassador, h.pin)
	r.Post("/api/admin/announcements/:post_id/unpin", ambassador, h.unpin)
}
