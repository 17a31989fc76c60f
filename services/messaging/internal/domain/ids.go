package domain

import (
	"fmt"

	"sharedworld.dev/pkg/problem"
)

// Id prefixes (CONTRACT §1): the store draws the 8 random hex characters.
// Inbox messages are messages too, so they carry msg_ ids.
const (
	MessagePrefix      = "msg"
	NotificationPrefix = "ntf"
	PostPrefix         = "post"
)

// ValidID reports whether s is prefix_ followed by 8 lowercase hex
// characters. An id of another shape names nothing, so callers answer it
// as an unknown one (404).
func ValidID(prefix, s string) bool {
	p := prefix + "_"
	if len(s) != len(p)+8 || s[:len(p)] != p {
		return false
	}
	for _, r := range s[len(p):] {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}

// ErrMessageNotFound answers an id that names no message the caller may see.
func ErrMessageNotFound(id string) error {
	return problem.NotFound(fmt.Sprintf("You have no message with the id %q.", id),
		"Message ids look like msg_0a1b2c3d; list yours with GET /api/world/messages?box=inbox.")
}

// ErrNotificationNotFound answers an id that names no notification of the caller.
func ErrNotificationNotFound(id string) error {
	return problem.NotFound(fmt.Sprintf("You have no notification with the id %q.", id),
		"Notification ids look like ntf_0a1b2c3d; list yours with GET /api/world/notifications.")
}

// ErrInboxNotFound answers an inbox id the ambassador's inbox does not hold.
func ErrInboxNotFound(id string) error {
	return problem.NotFound(fmt.Sprintf("No inbox message has the id %q.", id),
		"List the inbox with GET /api/admin/inbox and use a message_id from it.")
}
