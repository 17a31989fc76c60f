package domain

import (
	"context"
	"errors"
	"time"
)

// ErrClaimed: the agent_id is already claimed (pending, living or tombstoned).
var ErrClaimed = errors.New("agent_id already claimed")

// Repository stores citizens. Every change of a citizen goes through
// Change; presence goes through Touch because it is not a citizen event.
type Repository interface {
	// Claim stores a pending citizen under its agent_id; ErrClaimed when
	// the agent_id is taken.
	Claim(ctx context.Context, c Citizen) error
	// Get returns a citizen in any status; found is false when absent.
	Get(ctx context.Context, agentID string) (c Citizen, found bool, err error)
	// Change runs fn on the current citizen and stores the result together
	// with the event fn returns, in one write; fn may run again when another
	// writer got there first, so it decides from the citizen alone. fn
	// returning no event stores nothing. ErrNoCitizen when absent.
	Change(ctx context.Context, agentID string, fn func(*Citizen) (Event, error)) (Citizen, error)
	// Touch records a sighting of a living citizen (signed zero: unsigned)
	// without changing its version.
	Touch(ctx context.Context, agentID string, seen, signed time.Time) error
	// NumberFor gives agentID the next citizen number, or the one it holds.
	NumberFor(ctx context.Context, agentID string) (int64, error)
	// Pending lists claims left pending since before cutoff.
	Pending(ctx context.Context, cutoff time.Time) ([]Citizen, error)
	// Directory lists visible, named, living citizens by citizen number,
	// with the number of all that match.
	Directory(ctx context.Context, q DirectoryQuery) ([]Citizen, int64, error)
}

// DirectoryQuery selects directory entries.
type DirectoryQuery struct {
	Search   string // case-insensitive substring of name or directory_bio
	Interest string // case-insensitive exact interest
	Limit    int
	Offset   int
}
