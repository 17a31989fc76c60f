package domain

import (
	"fmt"

	"sharedworld.dev/pkg/problem"
)

// TicketID is `tkt_` and 8 lowercase hex characters (CONTRACT §1).
type TicketID string

// TicketIDPrefix is what a ticket id starts with before its underscore; the
// store draws the 8 random hex characters after it.
const TicketIDPrefix = "tkt"

const ticketIDPrefix = TicketIDPrefix + "_"

// ParseTicketID checks the shape of an id taken from a path. An id of the
// wrong shape cannot name any ticket, so it is answered like an unknown one:
// 404 not_found, with a hint showing the shape.
func ParseTicketID(s string) (TicketID, error) {
	if len(s) != len(ticketIDPrefix)+8 || s[:len(ticketIDPrefix)] != ticketIDPrefix {
		return "", ErrTicketNotFound(s)
	}
	for _, r := range s[len(ticketIDPrefix):] {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return "", ErrTicketNotFound(s)
		}
	}
	return TicketID(s), nil
}

// ErrTicketNotFound is the answer for an id that names no ticket.
func ErrTicketNotFound(id string) error {
	return problem.NotFound(fmt.Sprintf("No ticket has the id %q.", id),
		"Ticket ids look like tkt_0a1b2c3d; list tickets with GET /api/world/tickets.")
}
