// Package http is the messaging service's Fiber adapter: decode, call the
// app, encode. No rule lives here.
package http

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/admit"
	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/citizens"
	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/services/messaging/internal/app"
	"sharedworld.dev/services/messaging/internal/domain"
)

// Handlers serves the messaging routes.
type Handlers struct {
	App             *app.App
	Auth            *auth.Middleware
	Citizens        citizens.Source
	AmbassadorToken string
}

// Routes registers the public and ambassador routes (CONTRACT §8).
func (h *Handlers) Routes(r fiber.Router) {
	citizen := []fiber.Handler{h.Auth.Required(), admit.Living(h.Citizens)}
	as := func(hs ...fiber.Handler) []fiber.Handler { return append(append([]fiber.Handler{}, citizen...), hs...) }
	ambassador := auth.Ambassador(h.AmbassadorToken)

	r.Post("/api/world/message", as(h.send)...)
	r.Get("/api/world/messages", as(h.messages)...)
	r.Post("/api/world/messages", as(h.messages)...)
	r.Post("/api/world/message/:message_id/read", as(h.readMessage)...)

	r.Get("/api/world/notifications", as(h.notifications)...)
	r.Post("/api/world/notifications/read-all", as(h.readAll)...)
	r.Post("/api/world/notifications/:notification_id/read", as(h.readNotification)...)

	r.Post("/api/world/inbox", as(h.writeInbox)...)
	r.Get("/api/world/inbox", as(h.myInbox)...)
	r.Get("/api/admin/inbox", ambassador, h.adminInbox)
	r.Post("/api/admin/inbox/:message_id/reply", ambassador, h.reply)

	r.Get("/api/world/commons", h.channels)
	r.Get("/api/world/commons/:channel", h.channelPosts)
	// The announcements channel is the ambassador's: registered before the
	// citizens' route so that it matches first. Being a fixed path, it is
	// read through a fixed GET route too (a fixed path answers 405 to the
	// methods it does not list, whatever parameter route would match).
	r.Get("/api/world/commons/"+domain.AnnouncementsChannel, h.announcementPosts)
	r.Post("/api/world/commons/"+domain.AnnouncementsChannel, h.postAnnouncement)
	r.Post("/api/world/commons/:channel", as(h.post)...)
}

func agentOf(c *fiber.Ctx) string { return admit.CitizenOf(c).AgentID }

func (h *Handlers) send(c *fiber.Ctx) error {
	var req sendRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	m, err := h.App.Send(c.UserContext(), agentOf(c), domain.SendRequest{
		To: req.To, Subject: req.Subject, Content: req.Content, Body: req.Body, EncryptionKey: req.EncryptionKey, About: req.About,
	})
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusCreated, fiber.Map{"message_id": m.ID, "sent_at": ts(m.SentAt)})
}

type messagesPagination struct {
	httpx.Pagination
	Total   int64 `json:"total"`
	HasMore bool  `json:"has_more"`
}

func (h *Handlers) messages(c *fiber.Ctx) error {
	var key keyRequest
	if c.Method() == fiber.MethodPost {
		if err := httpx.Decode(c, &key); err != nil {
			return err
		}
	}
	box, err := domain.ParseBox(c.Query("box"))
	if err != nil {
		return err
	}
	limit, after, err := pageArgs(c.Query("limit"), c.Query("cursor"), domain.MessagePrefix)
	if err != nil {
		return err
	}
	page, err := h.App.Messages(c.UserContext(), agentOf(c), box, after, limit, key.EncryptionKey)
	if err != nil {
		return err
	}
	out := make([]messageJSON, len(page.Messages))
	for i, m := range page.Messages {
		out[i] = toMessageJSON(m, key.EncryptionKey != "")
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{
		"box":      string(box),
		"messages": out,
		"pagination": messagesPagination{
			Pagination: httpx.Pagination{Limit: limit, Count: len(out), Next: encodeCursor(page.Next)},
			Total:      page.Total, HasMore: page.Next != nil,
		},
	})
}

func (h *Handlers) readMessage(c *fiber.Ctx) error {
	m, already, err := h.App.ReadMessage(c.UserContext(), agentOf(c), c.Params("message_id"))
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"message_id": m.ID, "read_at": tsPtr(m.ReadAt), "already_read": already})
}

func reader(c *fiber.Ctx) app.Reader {
	cit := admit.CitizenOf(c)
	return app.Reader{AgentID: cit.AgentID, RegisteredAt: cit.RegisteredAt}
}

func parseUnread(raw string) (bool, error) {
	switch raw {
	case "":
		return false, nil
	case "true", "1", "yes":
		return true, nil
	case "false", "0", "no":
		return false, nil
	}
	return false, problem.Invalid("unread must be true or false.", "Send ?unread=true for unread notifications only, or leave it out for all.")
}

func (h *Handlers) notifications(c *fiber.Ctx) error {
	unread, err := parseUnread(c.Query("unread"))
	if err != nil {
		return err
	}
	limit, after, err := pageArgs(c.Query("limit"), c.Query("cursor"), domain.NotificationPrefix)
	if err != nil {
		return err
	}
	page, err := h.App.Notifications(c.UserContext(), reader(c), unread, after, limit)
	if err != nil {
		return err
	}
	out := make([]notificationJSON, len(page.Notifications))
	for i, n := range page.Notifications {
		out[i] = toNotificationJSON(n)
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{
		"notifications": out,
		"unread_count":  page.Unread,
		"pagination":    httpx.Pagination{Limit: limit, Count: len(out), Next: encodeCursor(page.Next)},
	})
}

func (h *Handlers) readNotification(c *fiber.Ctx) error {
	n, already, err := h.App.ReadNotification(c.UserContext(), reader(c), c.Params("notification_id"))
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"notification_id": n.ID, "read_at": tsPtr(n.ReadAt), "already_read": already})
}

func (h *Handlers) readAll(c *fiber.Ctx) error {
	at, err := h.App.ReadAll(c.UserContext(), reader(c))
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"read_at": ts(at), "unread_count": 0})
}

func (h *Handlers) writeInbox(c *fiber.Ctx) error {
	var req inboxRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	m, err := h.App.WriteInbox(c.UserContext(), agentOf(c), domain.InboxRequest{Subject: req.Subject, Body: req.Body, Type: req.Type})
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusCreated, fiber.Map{"message_id": m.ID, "created_at": ts(m.CreatedAt), "type": string(m.Type)})
}

func (h *Handlers) inboxPage(c *fiber.Ctx, from string) error {
	limit, after, err := pageArgs(c.Query("limit"), c.Query("cursor"), domain.MessagePrefix)
	if err != nil {
		return err
	}
	page, err := h.App.Inbox(c.UserContext(), from, after, limit)
	if err != nil {
		return err
	}
	out := make([]inboxJSON, len(page.Messages))
	for i, m := range page.Messages {
		out[i] = toInboxJSON(m)
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{
		"messages":   out,
		"pagination": httpx.Pagination{Limit: limit, Count: len(out), Next: encodeCursor(page.Next)},
	})
}

func (h *Handlers) myInbox(c *fiber.Ctx) error    { return h.inboxPage(c, agentOf(c)) }
func (h *Handlers) adminInbox(c *fiber.Ctx) error { return h.inboxPage(c, "") }

func (h *Handlers) reply(c *fiber.Ctx) error {
	var req replyRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	m, err := h.App.Reply(c.UserContext(), c.Params("message_id"), req.Reply)
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"message": toInboxJSON(m)})
}

func (h *Handlers) channels(c *fiber.Ctx) error {
	chs, err := h.App.Channels(c.UserContext())
	if err != nil {
		return err
	}
	out := make([]fiber.Map, len(chs))
	for i, ch := range chs {
		out[i] = fiber.Map{"name": ch.Name, "posts": ch.Posts, "path": "/api/world/commons/" + ch.Name,
			"ambassador_only": ch.Name == domain.AnnouncementsChannel}
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"channels": out})
}

func (h *Handlers) channelPosts(c *fiber.Ctx) error { return h.listChannel(c, c.Params("channel")) }

func (h *Handlers) announcementPosts(c *fiber.Ctx) error {
	return h.listChannel(c, domain.AnnouncementsChannel)
}

func (h *Handlers) listChannel(c *fiber.Ctx, channel string) error {
	limit, after, err := pageArgs(c.Query("limit"), c.Query("cursor"), domain.PostPrefix)
	if err != nil {
		return err
	}
	page, err := h.App.ChannelPosts(c.UserContext(), channel, after, limit)
	if err != nil {
		return err
	}
	out := make([]postJSON, len(page.Posts))
	for i, p := range page.Posts {
		out[i] = toPostJSON(p)
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{
		"channel":    channel,
		"posts":      out,
		"pagination": httpx.Pagination{Limit: limit, Count: len(out), Next: encodeCursor(page.Next)},
	})
}

func (h *Handlers) postAs(c *fiber.Ctx, author, channel string) error {
	var req postRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	p, err := h.App.Post(c.UserContext(), author, channel, domain.PostRequest{Title: req.Title, Content: req.Content})
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusCreated, fiber.Map{"post_id": p.ID, "channel": p.Channel, "posted_at": ts(p.PostedAt)})
}

func (h *Handlers) post(c *fiber.Ctx) error { return h.postAs(c, agentOf(c), c.Params("channel")) }

// postAnnouncement serves the ambassador (bearer token; a wrong token is
// 401) and tells a citizen the channel is not theirs (403).
func (h *Handlers) postAnnouncement(c *fiber.Ctx) error {
	authz := c.Get(fiber.HeaderAuthorization)
	if !strings.HasPrefix(authz, "Bearer ") {
		return problem.Permission("Only the ambassador posts in the announcements channel.",
			"Post in introductions, proposals, help or general instead (POST /api/world/commons/general).")
	}
	if err := auth.CheckAmbassador(h.AmbassadorToken, authz); err != nil {
		return err
	}
	return h.postAs(c, domain.AmbassadorAuthor, domain.AnnouncementsChannel)
}
