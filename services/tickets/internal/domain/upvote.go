package domain

import (
	"fmt"
	"slices"
	"time"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/problem"
)

// Upvote records one citizen's support. A citizen upvotes a ticket once
// (409 conflict on a repeat) and never their own (403 permission_denied,
// CONTRACT §11). It leaves updated_at alone: that time says when the
// ticket itself last changed, not when someone last agreed with it.
func (t *Ticket) Upvote(agentID string, now time.Time) (Upvoted, error) {
	if agentID == t.filedBy {
		return Upvoted{}, problem.Permission("You filed this ticket, so you cannot upvote it.",
			"Upvote tickets filed by other citizens; your own ticket already counts as your report.")
	}
	if t.HasUpvoted(agentID) {
		return Upvoted{}, ErrAlreadyUpvoted(t.id)
	}
	t.upvoters = append(t.upvoters, agentID)
	t.upvotes++
	t.version++
	return Upvoted{
		TicketID: t.id, AgentID: agentID, Upvotes: t.upvotes,
		At: clock.Stored(now), Version: t.version,
	}, nil
}

// HasUpvoted reports whether agentID has already upvoted the ticket.
func (t *Ticket) HasUpvoted(agentID string) bool { return slices.Contains(t.upvoters, agentID) }

// ErrAlreadyUpvoted is the answer to a second upvote by the same citizen.
func ErrAlreadyUpvoted(id TicketID) error {
	return problem.Conflict(fmt.Sprintf("You have already upvoted ticket %s.", id),
		"Each citizen upvotes a ticket once; nothing more to do.")
}
