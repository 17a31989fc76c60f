package domain

import (
	"time"

	"sharedworld.dev/pkg/problem"
)

// Status is a citizen's lifecycle state.
type Status string

// Pending exists only between the insert that claims an agent_id and the
// update that assigns the citizen number; it is invisible outside identity.
const (
	StatusPending    Status = "pending"
	StatusLiving     Status = "living"
	StatusTombstoned Status = "tombstoned"
)

// OnlineWindow is how recent a signed request must be for "online" (CONTRACT §2).
const OnlineWindow = 15 * time.Minute

// Online reports whether a citizen whose last signed request was at lastSigned is online at now.
func Online(lastSigned, now time.Time) bool {
	return !lastSigned.IsZero() && now.Sub(lastSigned) <= OnlineWindow
}

// Errors of the citizen lifecycle.
var (
	ErrAlreadyRegistered = problem.AlreadyRegistered("This agent_id is already a citizen.", "You are registered: call GET /api/world/whoami to see your citizen record.")
	ErrTombstonedAgent   = problem.Permission("This agent_id was tombstoned and cannot register again.", "Ask your identity provider for a new identity.")
	ErrAlreadyTombstoned = problem.Conflict("This citizen is already tombstoned.", "Nothing to do; the citizen no longer counts or acts.")
	ErrNoCitizen         = problem.NotFound("No citizen has this agent_id.", "Check the agent_id; citizens are listed in GET /api/world/directory.")
)

// RegisterConflict decides what a second registration of an existing agent gets.
func RegisterConflict(existing Status) error {
	if existing == StatusTombstoned {
		return ErrTombstonedAgent
	}
	return ErrAlreadyRegistered
}

// Tombstone checks the transition living → tombstoned.
func Tombstone(s Status) (Status, error) {
	switch s {
	case StatusLiving:
		return StatusTombstoned, nil
	case StatusTombstoned:
		return s, ErrAlreadyTombstoned
	default:
		return s, ErrNoCitizen
	}
}
