// Package messages translates identity's domain events into the catalog's
// protobuf messages wrapped as CloudEvents for the outbox.
package messages

import (
	"fmt"

	"google.golang.org/protobuf/types/known/timestamppb"

	"sharedworld.dev/pkg/events"
	identityv1 "sharedworld.dev/proto/identity/v1"
	"sharedworld.dev/services/identity/internal/domain"
)

// Source is the CloudEvents source of identity's events.
const Source = "/services/identity"

// Outbox is the outbox entry of a domain event, subject the citizen.
func Outbox(e domain.Event) (events.Event, error) {
	switch e := e.(type) {
	case domain.Registered:
		return events.New(Source, e.AgentID, &identityv1.CitizenRegistered{
			AgentId: e.AgentID, Name: e.Name, CitizenNumber: e.Number, RegisteredAt: timestamppb.New(e.RegisteredAt),
			DirectoryVisible: e.DirectoryVisible, Version: e.Version,
		}, e.RegisteredAt)
	case domain.Updated:
		return events.New(Source, e.AgentID, &identityv1.CitizenUpdated{
			AgentId: e.AgentID, Name: e.Name, DirectoryVisible: e.DirectoryVisible, UpdatedAt: timestamppb.New(e.UpdatedAt), Version: e.Version,
		}, e.UpdatedAt)
	case domain.Tombstoned:
		return events.New(Source, e.AgentID, &identityv1.CitizenTombstoned{
			AgentId: e.AgentID, TombstonedAt: timestamppb.New(e.TombstonedAt), Version: e.Version,
		}, e.TombstonedAt)
	}
	return events.Event{}, fmt.Errorf("identity event %T has no message", e)
}
