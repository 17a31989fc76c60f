package domain

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/problem"
)

// transitions are the only status changes the ambassador may make
// (CONTRACT §5). Nothing leaves resolved, and there is no way back to open:
// a filer cannot withdraw a ticket and triage only moves forward.
var transitions = map[Status][]Status{
	StatusOpen:         {StatusAcknowledged, StatusResolved},
	StatusAcknowledged: {StatusResolved},
}

// CanMove reports whether a ticket in status from may move to status to.
func CanMove(from, to Status) bool {
	for _, s := range transitions[from] {
		if s == to {
			return true
		}
	}
	return false
}

// TriageRequest is the ambassador's decision: a new status and an optional
// response shown on the ticket.
type TriageRequest struct {
	Status   string
	Response *string
}

// Triage is a validated TriageRequest.
type Triage struct {
	To       Status
	Response string // empty: keep the ticket's current response
}

// ParseTriage checks the request: status is required and must be one of the
// three statuses (400 otherwise); a response is at most 3000 characters (422).
func ParseTriage(req TriageRequest) (Triage, error) {
	to, err := ParseStatus(req.Status)
	if err != nil {
		return Triage{}, err
	}
	var response string
	if req.Response != nil {
		response = strings.TrimSpace(*req.Response)
	}
	if n := utf8.RuneCountInString(response); n > MaxResponseLength {
		return Triage{}, problem.Validation(fmt.Sprintf("The response is %d characters long; at most %d are allowed.", n, MaxResponseLength),
			"Shorten the response to 3000 characters.")
	}
	return Triage{To: to, Response: response}, nil
}

// Apply moves the ticket to the triaged status, or fails with 409 conflict
// when the contract does not allow that move.
func (t *Ticket) Apply(tr Triage, now time.Time) (StatusChanged, error) {
	if !CanMove(t.status, tr.To) {
		return StatusChanged{}, transitionConflict(t.id, t.status, tr.To)
	}
	now = clock.Stored(now)
	from := t.status
	t.status = tr.To
	if tr.Response != "" {
		t.response = tr.Response
	}
	t.updatedAt = now
	t.version++
	return StatusChanged{
		TicketID: t.id, From: from, To: t.status, Response: t.response, At: now,
		Category: t.category, Title: t.title, CreatedAt: t.createdAt, Version: t.version,
	}, nil
}

func transitionConflict(id TicketID, from, to Status) error {
	hint := "Allowed changes: open→acknowledged, open→resolved, acknowledged→resolved."
	switch {
	case from == StatusResolved:
		return problem.Conflict(fmt.Sprintf("Ticket %s is resolved; a resolved ticket cannot change status.", id),
			"Resolved is final. If the problem is back, the filer can file a new ticket.")
	case from == to:
		return problem.Conflict(fmt.Sprintf("Ticket %s is already %s.", id, from), hint)
	default:
		return problem.Conflict(fmt.Sprintf("Ticket %s cannot move from %s to %s.", id, from, to), hint)
	}
}
