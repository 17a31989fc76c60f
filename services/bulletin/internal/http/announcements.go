package http

import (
	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/services/bulletin/internal/domain"
)

type announcementRequest struct {
	Title   string `json:"title"`
	Content string `json:"content"`
	Pinned  *bool  `json:"pinned"`
}

func (h *Handlers) postAnnouncement(c *fiber.Ctx) error {
	var req announcementRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	a, err := h.Announcements.Post(c.UserContext(), domain.AnnouncementDraft{Title: req.Title, Content: req.Content, Pinned: req.Pinned})
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusCreated, fiber.Map{"announcement": a.View()})
}

func (h *Handlers) pin(c *fiber.Ctx) error {
	a, err := h.Announcements.Pin(c.UserContext(), c.Params("post_id"))
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"announcement": a.View()})
}

func (h *Handlers) unpin(c *fiber.Ctx) error {
	a, err := h.Announcements.Unpin(c.UserContext(), c.Params("post_id"))
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"announcement": a.View()})
}
