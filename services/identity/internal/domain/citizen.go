package domain

import (
	"time"

	"sharedworld.dev/pkg/clock"
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

// Citizen is the citizen aggregate: lifecycle, number, profile and presence.
type Citizen struct {
	AgentID      string
	Status       Status
	Number       int64 // 0 while pending
	RegisteredAt time.Time
	Profile
	LastSeenAt   time.Time
	LastSignedAt time.Time
	TombstonedAt time.Time
	// Version counts the citizen's events (registered is 1): other services
	// order what they learn about a citizen by it. A pending citizen is at 0.
	Version uint64
}

// NewPending is the claim of agentID with the profile given at registration;
// it becomes a citizen when Activate gives it a number.
func NewPending(agentID string, p Profile, now time.Time) Citizen {
	return Citizen{AgentID: agentID, Status: StatusPending, RegisteredAt: clock.Stored(now), Profile: p}
}

// Activate makes a pending citizen living with its citizen number. A
// citizen already past pending (another replica finished the registration)
// is left as it is: no event.
func (c *Citizen) Activate(number int64) (Event, error) {
	if c.Status != StatusPending {
		return nil, nil
	}
	c.Status, c.Number = StatusLiving, number
	c.Version++
	return Registered{AgentID: c.AgentID, Name: c.Name, Number: number, RegisteredAt: c.RegisteredAt,
		DirectoryVisible: c.DirectoryVisible, Version: c.Version}, nil
}

// ChangeProfile applies a partial profile change to a living citizen.
func (c *Citizen) ChangeProfile(ch ProfileChange, now time.Time) (Event, error) {
	if c.Status != StatusLiving {
		return nil, ErrNoCitizen
	}
	p, err := c.Profile.Apply(ch)
	if err != nil {
		return nil, err
	}
	c.Profile = p
	c.Version++
	return Updated{AgentID: c.AgentID, Name: p.Name, DirectoryVisible: p.DirectoryVisible, UpdatedAt: clock.Stored(now), Version: c.Version}, nil
}

// Tombstone ends a living citizen: it stops counting and cannot act.
func (c *Citizen) Tombstone(now time.Time) (Event, error) {
	next, err := Tombstone(c.Status)
	if err != nil {
		return nil, err
	}
	c.Status, c.TombstonedAt = next, clock.Stored(now)
	c.Version++
	return Tombstoned{AgentID: c.AgentID, TombstonedAt: c.TombstonedAt, Version: c.Version}, nil
}
