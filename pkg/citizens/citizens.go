// Package citizens is what every service knows of a citizen (Citizen) and
// how it asks (Source): over HTTP at identity (HTTPSource), or from its own
// projection of citizen.* events (package directory, which holds the
// database side, so the HTTP layers that take a Source never link the
// database driver).
package citizens

import (
	"context"
	"time"

	"sharedworld.dev/proto/catalog"
)

// Citizen is what other services need to know about a citizen.
type Citizen struct {
	AgentID      string    `bson:"_id" json:"agent_id"`
	Name         string    `bson:"name" json:"name"`
	Number       int64     `bson:"citizen_number" json:"citizen_number"`
	RegisteredAt time.Time `bson:"registered_at" json:"registered_at"`
	Tombstoned   bool      `bson:"tombstoned" json:"tombstoned"`
	Version      uint64    `bson:"version" json:"version"`
}

// Source finds a citizen by agent id; found is false for unknown agents.
type Source interface {
	Lookup(ctx context.Context, agentID string) (c Citizen, found bool, err error)
}

// Topics are what a directory of citizens (package directory) consumes.
var Topics = []string{catalog.TopicIdentity}
