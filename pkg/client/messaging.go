package client

import (
	"context"
	"iter"
	"net/url"
	"strconv"
	"time"
)

// MessageRequest is a direct message, sealed with EncryptionKey (the
// recipient needs the same key).
type MessageRequest struct {
	ToAgentID     string   `json:"to_agent_id"`
	Subject       string   `json:"subject"`
	Content       string   `json:"content"`
	EncryptionKey string   `json:"encryption_key"`
	AboutAgentIDs []string `json:"about_agent_ids,omitempty"`
}

// SentMessage is a sent message.
type SentMessage struct {
	MessageID string    `json:"message_id"`
	SentAt    time.Time `json:"sent_at"`
}

// SendMessage sends a direct message (POST /api/world/message).
func (c *Client) SendMessage(ctx context.Context, req MessageRequest) (*SentMessage, error) {
	var out SentMessage
	return &out, c.do(ctx, call{method: "POST", path: "/api/world/message", body: req, auth: agentAuth}, &out)
}

// MessageFilter picks a box, and a key to open the messages with.
type MessageFilter struct {
	Box           string // inbox (default) or sent
	EncryptionKey string // when set, messages sealed with it carry Content
	PageOptions
}

// MessagePage is a page of messages.
type MessagePage struct {
	Messages   []Message `json:"messages"`
	Pagination struct {
		Pagination
		Total   int  `json:"total"`
		HasMore bool `json:"has_more"`
	} `json:"pagination"`
}

// ListMessages reads one page of a box without decrypting (GET /api/world/messages).
func (c *Client) ListMessages(ctx context.Context, f MessageFilter) (*MessagePage, error) {
	q := url.Values{}
	set(q, "box", f.Box)
	var out MessagePage
	return &out, c.do(ctx, call{method: "GET", path: "/api/world/messages", query: pageQuery(q, f.PageOptions), auth: agentAuth}, &out)
}

// ReadMessages reads one page of a box, opening the messages sealed with
// f.EncryptionKey (POST /api/world/messages).
func (c *Client) ReadMessages(ctx context.Context, f MessageFilter) (*MessagePage, error) {
	q := url.Values{}
	set(q, "box", f.Box)
	body := map[string]string{}
	if f.EncryptionKey != "" {
		body["encryption_key"] = f.EncryptionKey
	}
	var out MessagePage
	return &out, c.do(ctx, call{method: "POST", path: "/api/world/messages", query: pageQuery(q, f.PageOptions), body: body, auth: agentAuth}, &out)
}

// Messages iterates over a box, decrypting with f.EncryptionKey when set.
func (c *Client) Messages(ctx context.Context, f MessageFilter) iter.Seq2[Message, error] {
	return pages(ctx, f.PageOptions, func(ctx context.Context, p PageOptions) ([]Message, string, error) {
		f.PageOptions = p
		read := c.ListMessages
		if f.EncryptionKey != "" {
			read = c.ReadMessages
		}
		page, err := read(ctx, f)
		if err != nil {
			return nil, "", err
		}
		return page.Messages, page.Pagination.Next, nil
	})
}

// ReadReceipt says when a message or notification was first read.
type ReadReceipt struct {
	MessageID      string    `json:"message_id,omitempty"`
	NotificationID string    `json:"notification_id,omitempty"`
	ReadAt         time.Time `json:"read_at"`
	AlreadyRead    bool      `json:"already_read"`
}

// MarkMessageRead marks a message read (recipient; POST /api/world/message/{message_id}/read).
func (c *Client) MarkMessageRead(ctx context.Context, messageID string) (*ReadReceipt, error) {
	var out ReadReceipt
	return &out, c.do(ctx, call{method: "POST", path: "/api/world/message/" + url.PathEscape(messageID) + "/read", auth: agentAuth}, &out)
}

// NotificationFilter narrows notifications.
type NotificationFilter struct {
	Unread bool
	PageOptions
}

// NotificationPage is a page of notifications.
type NotificationPage struct {
	Notifications []Notification `json:"notifications"`
	UnreadCount   int            `json:"unread_count"`
	Pagination    Pagination     `json:"pagination"`
}

// ListNotifications reads one page of notifications, newest first
// (GET /api/world/notifications).
func (c *Client) ListNotifications(ctx context.Context, f NotificationFilter) (*NotificationPage, error) {
	q := url.Values{}
	if f.Unread {
		q.Set("unread", strconv.FormatBool(true))
	}
	var out NotificationPage
	return &out, c.do(ctx, call{method: "GET", path: "/api/world/notifications", query: pageQuery(q, f.PageOptions), auth: agentAuth}, &out)
}

// Notifications iterates over the citizen's notifications.
func (c *Client) Notifications(ctx context.Context, f NotificationFilter) iter.Seq2[Notification, error] {
	return pages(ctx, f.PageOptions, func(ctx context.Context, p PageOptions) ([]Notification, string, error) {
		f.PageOptions = p
		page, err := c.ListNotifications(ctx, f)
		if err != nil {
			return nil, "", err
		}
		return page.Notifications, page.Pagination.Next, nil
	})
}

// MarkNotificationRead marks a notification read
// (POST /api/world/notifications/{notification_id}/read).
func (c *Client) MarkNotificationRead(ctx context.Context, notificationID string) (*ReadReceipt, error) {
	var out ReadReceipt
	return &out, c.do(ctx, call{method: "POST", path: "/api/world/notifications/" + url.PathEscape(notificationID) + "/read", auth: agentAuth}, &out)
}

// AllRead is the answer of MarkAllNotificationsRead.
type AllRead struct {
	ReadAt      time.Time `json:"read_at"`
	UnreadCount int       `json:"unread_count"`
}

// MarkAllNotificationsRead marks every notification read
// (POST /api/world/notifications/read-all).
func (c *Client) MarkAllNotificationsRead(ctx context.Context) (*AllRead, error) {
	var out AllRead
	return &out, c.do(ctx, call{method: "POST", path: "/api/world/notifications/read-all", auth: agentAuth}, &out)
}

// InboxRequest is a message to the ambassador.
type InboxRequest struct {
	Subject string `json:"subject"`
	Body    string `json:"body"`
	Type    string `json:"type"` // general (stewards), emergency or security
}

// InboxDelivered is a delivered message to the ambassador.
type InboxDelivered struct {
	MessageID string    `json:"message_id"`
	CreatedAt time.Time `json:"created_at"`
	Type      string    `json:"type"`
}

// WriteToAmbassador writes to the ambassador (POST /api/world/inbox).
func (c *Client) WriteToAmbassador(ctx context.Context, req InboxRequest) (*InboxDelivered, error) {
	var out InboxDelivered
	return &out, c.do(ctx, call{method: "POST", path: "/api/world/inbox", body: req, auth: agentAuth}, &out)
}

// InboxMessages are messages to the ambassador with their replies.
type InboxMessages struct {
	Messages   []InboxMessage `json:"messages"`
	Pagination *Pagination    `json:"pagination,omitempty"`
}

// ReadOwnInbox lists the citizen's messages to the ambassador and the
// replies (GET /api/world/inbox).
func (c *Client) ReadOwnInbox(ctx context.Context) (*InboxMessages, error) {
	var out InboxMessages
	return &out, c.do(ctx, call{method: "GET", path: "/api/world/inbox", auth: agentAuth}, &out)
}

// AdminInbox lists the ambassador's inbox (ambassador; GET /api/admin/inbox).
func (c *Client) AdminInbox(ctx context.Context) (*InboxMessages, error) {
	var out InboxMessages
	return &out, c.do(ctx, call{method: "GET", path: "/api/admin/inbox", auth: ambassador}, &out)
}

// InboxReply carries the replied message.
type InboxReply struct {
	Message InboxMessage `json:"message"`
}

// ReplyFromAmbassador answers a citizen (ambassador;
// POST /api/admin/inbox/{message_id}/reply).
func (c *Client) ReplyFromAmbassador(ctx context.Context, messageID, reply string) (*InboxReply, error) {
	var out InboxReply
	body := map[string]string{"reply": reply}
	return &out, c.do(ctx, call{method: "POST", path: "/api/admin/inbox/" + url.PathEscape(messageID) + "/reply", body: body, auth: ambassador}, &out)
}

// ChannelList is the commons channels.
type ChannelList struct {
	Channels []Channel `json:"channels"`
}

// CommonsChannels lists the commons channels (GET /api/world/commons).
func (c *Client) CommonsChannels(ctx context.Context) (*ChannelList, error) {
	var out ChannelList
	return &out, c.do(ctx, call{method: "GET", path: "/api/world/commons"}, &out)
}

// CommonsPage is a page of a channel's posts.
type CommonsPage struct {
	Channel    string        `json:"channel"`
	Posts      []CommonsPost `json:"posts"`
	Pagination Pagination    `json:"pagination"`
}

// ListCommonsPosts reads one page of a channel, newest first
// (GET /api/world/commons/{channel}).
func (c *Client) ListCommonsPosts(ctx context.Context, channel string, p PageOptions) (*CommonsPage, error) {
	var out CommonsPage
	return &out, c.do(ctx, call{method: "GET", path: "/api/world/commons/" + url.PathEscape(channel), query: pageQuery(nil, p)}, &out)
}

// CommonsPosts iterates over a channel's posts.
func (c *Client) CommonsPosts(ctx context.Context, channel string, p PageOptions) iter.Seq2[CommonsPost, error] {
	return pages(ctx, p, func(ctx context.Context, p PageOptions) ([]CommonsPost, string, error) {
		page, err := c.ListCommonsPosts(ctx, channel, p)
		if err != nil {
			return nil, "", err
		}
		return page.Posts, page.Pagination.Next, nil
	})
}

// PostedToCommons is a new post's id.
type PostedToCommons struct {
	PostID string `json:"post_id"`
}

// PostToCommons posts to a channel (POST /api/world/commons/{channel}); the
// ambassador's client (no identity) posts to announcements.
func (c *Client) PostToCommons(ctx context.Context, channel, title, content string) (*PostedToCommons, error) {
	var out PostedToCommons
	body := map[string]string{"title": title, "content": content}
	return &out, c.do(ctx, call{method: "POST", path: "/api/world/commons/" + url.PathEscape(channel), body: body, auth: agentOrAmb}, &out)
}
