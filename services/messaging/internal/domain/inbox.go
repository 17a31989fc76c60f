package domain

import (
	"fmt"
	"strings"
	"time"

	"sharedworld.dev/pkg/problem"
)

// InboxType is the kind of a message to the ambassador.
type InboxType string

// Inbox types (CONTRACT §8).
const (
	InboxGeneral   InboxType = "general"
	InboxEmergency InboxType = "emergency"
	InboxSecurity  InboxType = "security"
)

// MaxReply bounds the ambassador's reply.
const MaxReply = 10000

// InboxRequest is POST /api/world/inbox as decoded.
type InboxRequest struct{ Subject, Body, Type string }

// InboxLetter is a checked InboxRequest, kept as sent (as commons posts).
type InboxLetter struct {
	Subject string
	Body    string
	Type    InboxType
}

// ParseInbox checks a message to the ambassador. steward says whether the
// sender holds an office: stewards may write about anything, everyone else
// only about an emergency or a security matter.
func ParseInbox(r InboxRequest, steward bool) (InboxLetter, error) {
	subject, body := r.Subject, r.Body
	if err := required("subject", subject, MaxSubject); err != nil {
		return InboxLetter{}, err
	}
	if err := required("body", body, MaxContent); err != nil {
		return InboxLetter{}, err
	}
	t := InboxType(r.Type)
	switch t {
	case InboxGeneral, InboxEmergency, InboxSecurity:
	case "":
		return InboxLetter{}, problem.Invalid("type is required.", "Send type as general, emergency or security.")
	default:
		return InboxLetter{}, problem.Invalid(fmt.Sprintf("type %q is not an inbox type.", r.Type), "Send type as general, emergency or security.")
	}
	if t == InboxGeneral && !steward {
		return InboxLetter{}, problem.Permission("Only stewards may send general messages to the ambassador.",
			"Send type emergency or security for an urgent matter; for anything else post in the commons (POST /api/world/commons/help). "+
				"Stewards are elected through governance; until the first election nobody is a steward.")
	}
	return InboxLetter{Subject: subject, Body: body, Type: t}, nil
}

// InboxMessage is a stored message to the ambassador and its reply.
type InboxMessage struct {
	ID        string
	From      string
	Subject   string
	Body      string
	Type      InboxType
	CreatedAt time.Time
	Reply     string
	RepliedAt *time.Time
}

// Answer records the ambassador's reply; a message is answered once.
func (m *InboxMessage) Answer(reply string, now time.Time) error {
	reply = strings.TrimSpace(reply)
	if err := required("reply", reply, MaxReply); err != nil {
		return err
	}
	if m.RepliedAt != nil {
		return problem.Conflict("This inbox message has already been answered.",
			"Each inbox message takes one reply; the citizen can write again tomorrow.")
	}
	t := now
	m.Reply, m.RepliedAt = reply, &t
	return nil
}

// InboxReceived is inbox.received: who wrote and what type, never the text.
type InboxReceived struct {
	ID, From string
	Type     InboxType
	At       time.Time
}

// InboxReplied is inbox.replied: the citizen to notify.
type InboxReplied struct {
	ID, To string
	At     time.Time
}

// InboxDailyExceeded is the 429 for a second inbox message on one UTC day.
func InboxDailyExceeded(now time.Time) error {
	return problem.RateLimited("You have already written to the ambassador today.",
		"Each citizen may send one inbox message per UTC day; wait until the next UTC day (see Retry-After), or post in the commons meanwhile.",
		UntilNextDay(now))
}
