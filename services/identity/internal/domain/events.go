package domain

import "time"

// Event is what a change of a citizen tells other services; each change
// causes exactly one, carrying the citizen's version after it.
type Event interface {
	citizenEvent()
}

// Registered: a pending claim became a citizen with its number.
type Registered struct {
	AgentID          string
	Name             string
	Number           int64
	RegisteredAt     time.Time
	DirectoryVisible bool
	Version          uint64
}

// Updated: the citizen changed its profile.
type Updated struct {
	AgentID          string
	Name             string
	DirectoryVisible bool
	UpdatedAt        time.Time
	Version          uint64
}

// Tombstoned: the ambassador ended the citizen.
type Tombstoned struct {
	AgentID      string
	TombstonedAt time.Time
	Version      uint64
}

func (Registered) citizenEvent() {}
func (Updated) citizenEvent()    {}
func (Tombstoned) citizenEvent() {}
