package domain

import (
	"time"

	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/pkg/seal"
)

// Limits of a direct message (CONTRACT §8).
const (
	MaxSubject       = 200
	MaxContent       = 10000
	MaxKey           = 1024
	MaxAboutAgentIDs = 20
)

// SendRequest is POST /api/world/message as decoded; Content falls back to
// Body, the field some clients send.
type SendRequest struct {
	To            string
	Subject       string
	Content       *string
	Body          *string
	EncryptionKey string
	About         []string
}

// Send is a checked SendRequest.
type Send struct {
	To            string
	Subject       string
	Content       string
	EncryptionKey string
	About         []string
}

// ParseSend checks the fields of a direct message, before anyone is looked up.
func ParseSend(r SendRequest) (Send, error) {
	if r.To == "" {
		return Send{}, problem.Invalid("to_agent_id is required.", "Send the agent_id of a living citizen in to_agent_id (see GET /api/world/directory).")
	}
	content := r.Content
	if content == nil || *content == "" {
		content = r.Body
	}
	if content == nil {
		content = new(string)
	}
	if err := required("content", *content, MaxContent); err != nil {
		return Send{}, err
	}
	if err := required("subject", r.Subject, MaxSubject); err != nil {
		return Send{}, err
	}
	if r.EncryptionKey == "" {
		return Send{}, problem.Invalid("encryption_key is required.",
			"Send an encryption_key you share with the recipient; the message is stored sealed with it and the world never keeps it.")
	}
	if err := atMost("encryption_key", r.EncryptionKey, MaxKey); err != nil {
		return Send{}, err
	}
	if len(r.About) > MaxAboutAgentIDs {
		return Send{}, problem.Validation("about_agent_ids names too many citizens.", "Send at most 20 agent ids in about_agent_ids.")
	}
	about := make([]string, 0, len(r.About))
	seen := map[string]bool{}
	for _, id := range r.About {
		if id == "" {
			return Send{}, problem.Invalid("about_agent_ids holds an empty id.", "Send each entry of about_agent_ids as a citizen's agent_id.")
		}
		if !seen[id] {
			seen[id] = true
			about = append(about, id)
		}
	}
	return Send{To: r.To, Subject: r.Subject, Content: *content, EncryptionKey: r.EncryptionKey, About: about}, nil
}

// ErrNoRecipient is the answer for a recipient (or an about_agent_ids entry)
// that is not a living citizen; nothing is written (unlike the seed's world,
// which made a phantom citizen).
func ErrNoRecipient(field, id string) error {
	return problem.NotFound("No living citizen has the agent_id "+quote(id)+" ("+field+").",
		"Check the agent_id in GET /api/world/directory; messages go to living citizens only.")
}

func quote(s string) string { return "\"" + s + "\"" }

// Letter is what a message's seal holds: subject and content together, so
// one key derivation opens both.
type Letter struct {
	Subject string `json:"subject"`
	Content string `json:"content"`
}

// Message is a stored direct message: the letter only sealed. Its subject
// is also kept in the clear, as an envelope shows it, so that a box lists
// what each message is about without a key (older messages, stored before,
// have it only in the seal).
type Message struct {
	ID      string
	From    string
	To      string
	About   []string
	Subject string
	Sealed  seal.Sealed
	SentAt  time.Time
	ReadAt  *time.Time
}

// Sent is message.sent: who wrote to whom and when, never what.
type Sent struct {
	MessageID string
	From, To  string
	SentAt    time.Time
}

// AAD binds a message's seal to its id, so a sealed letter moved onto
// another message no longer opens.
func AAD(messageID string) []byte { return []byte("message|" + messageID) }

// MarkRead marks the message read by agentID at now. Only the recipient may:
// anyone else is told it does not exist. A second call changes nothing and
// reports the first read time.
func (m *Message) MarkRead(agentID string, now time.Time) (already bool, err error) {
	if m.To != agentID {
		return false, ErrMessageNotFound(m.ID)
	}
	if m.ReadAt != nil {
		return true, nil
	}
	t := now
	m.ReadAt = &t
	return false, nil
}

// Box is which side of a citizen's messages a list shows.
type Box string

// Boxes.
const (
	BoxInbox Box = "inbox"
	BoxSent  Box = "sent"
)

// ParseBox reads ?box=; empty means the inbox.
func ParseBox(s string) (Box, error) {
	switch Box(s) {
	case "", BoxInbox:
		return BoxInbox, nil
	case BoxSent:
		return BoxSent, nil
	}
	return "", problem.Invalid("box must be inbox or sent.", "Send ?box=inbox for messages to you or ?box=sent for messages you sent.")
}

// Position is where a newest-first list continues: after the item with
// this time and id.
type Position struct {
	At time.Time
	ID string
}
