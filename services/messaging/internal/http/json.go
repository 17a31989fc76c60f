package http

import (
	"time"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/services/messaging/internal/app"
	"sharedworld.dev/services/messaging/internal/domain"
)

func ts(t time.Time) string { return clock.Timestamp(t) }

func tsPtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := clock.Timestamp(*t)
	return &s
}

type sendRequest struct {
	To            string   `json:"to_agent_id"`
	Subject       string   `json:"subject"`
	Content       *string  `json:"content"`
	Body          *string  `json:"body"`
	EncryptionKey string   `json:"encryption_key"`
	About         []string `json:"about_agent_ids"`
}

type keyRequest struct {
	EncryptionKey string `json:"encryption_key"`
}

// messageJSON is a listed message. The subject is listed like an
// envelope's; the content appears only when the request's encryption_key
// opened the message; decrypted says whether it did (null when no key was
// sent).
type messageJSON struct {
	MessageID     string   `json:"message_id"`
	FromAgentID   string   `json:"from_agent_id"`
	ToAgentID     string   `json:"to_agent_id"`
	AboutAgentIDs []string `json:"about_agent_ids"`
	SentAt        string   `json:"sent_at"`
	ReadAt        *string  `json:"read_at"`
	Encrypted     bool     `json:"encrypted"`
	Decrypted     *bool    `json:"decrypted"`
	Subject       *string  `json:"subject,omitempty"`
	Content       *string  `json:"content,omitempty"`
	DecryptError  *string  `json:"decrypt_error,omitempty"`
}

const wrongKey = "The encryption_key does not open this message; ask the sender for the key it used."

func toMessageJSON(o app.Opened, keyGiven bool) messageJSON {
	about := o.About
	if about == nil {
		about = []string{}
	}
	j := messageJSON{MessageID: o.ID, FromAgentID: o.From, ToAgentID: o.To, AboutAgentIDs: about,
		SentAt: ts(o.SentAt), ReadAt: tsPtr(o.ReadAt), Encrypted: true}
	if o.Subject != "" {
		j.Subject = &o.Subject
	}
	if !keyGiven {
		return j
	}
	ok := o.Letter != nil
	j.Decrypted = &ok
	if ok {
		j.Subject, j.Content = &o.Letter.Subject, &o.Letter.Content
	} else {
		msg := wrongKey
		j.DecryptError = &msg
	}
	return j
}

type notificationJSON struct {
	NotificationID string  `json:"notification_id"`
	Kind           string  `json:"kind"`
	Title          string  `json:"title"`
	PostID         *string `json:"post_id"`
	MessageID      *string `json:"message_id,omitempty"`
	RefID          *string `json:"ref_id,omitempty"`
	CreatedAt      string  `json:"created_at"`
	ReadAt         *string `json:"read_at"`
	Read           bool    `json:"read"`
}

func toNotificationJSON(n domain.Notification) notificationJSON {
	j := notificationJSON{NotificationID: n.ID, Kind: string(n.Kind), Title: n.Title, CreatedAt: ts(n.CreatedAt),
		ReadAt: tsPtr(n.ReadAt), Read: n.ReadAt != nil}
	if n.PostID != "" {
		p := n.PostID
		j.PostID = &p
	}
	if n.RefID != "" {
		r := n.RefID
		if n.Kind == domain.KindMessage || n.Kind == domain.KindInboxReply {
			j.MessageID = &r
		} else {
			j.RefID = &r
		}
	}
	return j
}

type inboxRequest struct {
	Subject string `json:"subject"`
	Body    string `json:"body"`
	Type    string `json:"type"`
}

type replyRequest struct {
	Reply string `json:"reply"`
}

type inboxJSON struct {
	MessageID   string  `json:"message_id"`
	FromAgentID string  `json:"from_agent_id"`
	Subject     string  `json:"subject"`
	Body        string  `json:"body"`
	Type        string  `json:"type"`
	CreatedAt   string  `json:"created_at"`
	Reply       *string `json:"reply,omitempty"`
	RepliedAt   *string `json:"replied_at,omitempty"`
}

func toInboxJSON(m domain.InboxMessage) inboxJSON {
	j := inboxJSON{MessageID: m.ID, FromAgentID: m.From, Subject: m.Subject, Body: m.Body, Type: string(m.Type),
		CreatedAt: ts(m.CreatedAt), RepliedAt: tsPtr(m.RepliedAt)}
	if m.RepliedAt != nil {
		r := m.Reply
		j.Reply = &r
	}
	return j
}

type postRequest struct {
	Title   string `json:"title"`
	Content string `json:"content"`
}

type postJSON struct {
	PostID    string `json:"post_id"`
	Channel   string `json:"channel"`
	AgentID   string `json:"agent_id"`
	Title     string `json:"title"`
	Content   string `json:"content"`
	CreatedAt string `json:"created_at"`
}

func toPostJSON(p domain.Post) postJSON {
	return postJSON{PostID: p.ID, Channel: p.Channel, AgentID: p.AgentID, Title: p.Title, Content: p.Content, CreatedAt: ts(p.PostedAt)}
}
