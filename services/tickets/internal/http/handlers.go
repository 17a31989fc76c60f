// Package http is the tickets service's Fiber adapter: decode, call the
// app, encode. No rule lives here.
package http

import (
	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/admit"
	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/citizens"
	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/services/tickets/internal/app"
	"sharedworld.dev/services/tickets/internal/domain"
)

// Handlers serves the tickets routes.
type Handlers struct {
	App             *app.App
	Auth            *auth.Middleware
	Citizens        citizens.Source
	AmbassadorToken string
}

// Routes registers the public and ambassador routes (CONTRACT §5).
func (h *Handlers) Routes(r fiber.Router) {
	citizen := admit.Living(h.Citizens)
	r.Post("/api/world/tickets", h.Auth.Required(), citizen, h.file)
	r.Get("/api/world/tickets", h.list)
	r.Get("/api/world/tickets/:ticket_id", h.get)
	r.Post("/api/world/tickets/:ticket_id/upvote", h.Auth.Required(), citizen, h.upvote)
	r.Patch("/api/admin/tickets/:ticket_id", auth.Ambassador(h.AmbassadorToken), h.triage)
}

func (h *Handlers) file(c *fiber.Ctx) error {
	var req fileRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	t, err := h.App.File(c.UserContext(), admit.CitizenOf(c).AgentID, domain.FileRequest{
		Category: req.Category, Title: req.Title, Description: req.Description, Severity: req.Severity,
	})
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusCreated, fiber.Map{"ticket": toTicketJSON(t)})
}

func (h *Handlers) list(c *fiber.Ctx) error {
	filter, err := domain.ParseListFilter(c.Query("status"), c.Query("category"))
	if err != nil {
		return err
	}
	limit, err := httpx.Limit(c)
	if err != nil {
		return err
	}
	after, err := decodeCursor(c.Query("cursor"))
	if err != nil {
		return err
	}
	page, err := h.App.List(c.UserContext(), filter, after, limit)
	if err != nil {
		return err
	}
	tickets := make([]ticketJSON, len(page.Tickets))
	for i, t := range page.Tickets {
		tickets[i] = toTicketJSON(t)
	}
	var next *string
	if page.Next != nil {
		s := encodeCursor(*page.Next)
		next = &s
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{
		"tickets":    tickets,
		"counts":     toCountsJSON(page.Counts),
		"pagination": httpx.Pagination{Limit: limit, Count: len(tickets), Next: next},
	})
}

func (h *Handlers) get(c *fiber.Ctx) error {
	t, err := h.App.Get(c.UserContext(), c.Params("ticket_id"))
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"ticket": toTicketJSON(t)})
}

func (h *Handlers) upvote(c *fiber.Ctx) error {
	t, err := h.App.Upvote(c.UserContext(), c.Params("ticket_id"), admit.CitizenOf(c).AgentID)
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"ticket_id": string(t.ID), "upvotes": t.Upvotes})
}

func (h *Handlers) triage(c *fiber.Ctx) error {
	var req triageRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	t, err := h.App.Triage(c.UserContext(), c.Params("ticket_id"), domain.TriageRequest{Status: req.Status, Response: req.Response})
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"ticket": toTicketJSON(t)})
}
