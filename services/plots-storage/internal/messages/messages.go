// Package messages turns plots-storage's domain events into the catalog's
// event messages (proto/plots/v1), ready for the outbox, and names the
// events the service consumes.
package messages

import (
	"fmt"

	"google.golang.org/protobuf/types/known/timestamppb"

	"sharedworld.dev/pkg/citizens"
	"sharedworld.dev/pkg/events"
	identityv1 "sharedworld.dev/proto/identity/v1"
	plotsv1 "sharedworld.dev/proto/plots/v1"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// Source is the CloudEvents source of this service's events.
const Source = "/services/plots-storage"

// Consumed lists the topics the service reads: citizen.* keeps its citizens
// projection current, and citizen.tombstoned releases the citizen's plot.
var Consumed = citizens.Topics

// Tombstoned is the agent id of a citizen.tombstoned event; ok is false
// for every other event.
func Tombstoned(e events.Event) (agentID string, ok bool) {
	m, err := e.Decode()
	if err != nil {
		return "", false // the citizens projection reports undecodable events
	}
	ts, ok := m.(*identityv1.CitizenTombstoned)
	return ts.GetAgentId(), ok
}

// Outbox translates domain events into outbox entries, in order.
func Outbox(evs []domain.Event) ([]events.Event, error) {
	out := make([]events.Event, 0, len(evs))
	for _, ev := range evs {
		m, err := Message(ev)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// Message is one domain event as its catalog message. Plot events are keyed
// by plot id; garden events by the commons plot id, so that the garden's
// events stay in order.
func Message(ev domain.Event) (events.Event, error) {
	switch e := ev.(type) {
	case domain.PlotClaimed:
		return events.New(Source, e.PlotID, &plotsv1.PlotClaimed{
			PlotId: e.PlotID, X: int32(e.Cell.X), Y: int32(e.Cell.Y), OwnerAgentId: e.Owner,
			DisplayName: e.DisplayName, ClaimedAt: timestamppb.New(e.At), Version: e.Version,
		}, e.At)
	case domain.PlotReleased:
		return events.New(Source, e.PlotID, &plotsv1.PlotReleased{
			PlotId: e.PlotID, X: int32(e.Cell.X), Y: int32(e.Cell.Y), OwnerAgentId: e.Owner,
			ReleasedAt: timestamppb.New(e.At), Version: e.Version,
		}, e.At)
	case domain.GardenChanged:
		at := timestamppb.New(e.At)
		if e.Verb == domain.Planted {
			return events.New(Source, domain.CommonsPlotID, &plotsv1.GardenPlanted{
				PlotId: domain.CommonsPlotID, Path: e.Path, AgentId: e.AgentID, AgentName: e.AgentName, GardenFiles: e.Files, At: at,
			}, e.At)
		}
		return events.New(Source, domain.CommonsPlotID, &plotsv1.GardenTended{
			PlotId: domain.CommonsPlotID, Path: e.Path, AgentId: e.AgentID, AgentName: e.AgentName, GardenFiles: e.Files, At: at,
		}, e.At)
	case domain.GardenRemoved:
		return events.New(Source, domain.CommonsPlotID, &plotsv1.GardenRemoved{
			PlotId: domain.CommonsPlotID, Path: e.Path, AgentId: e.AgentID, Role: string(e.Role),
			PlantedBy: e.PlantedBy, GardenFiles: e.Files, At: timestamppb.New(e.At),
		}, e.At)
	}
	return events.Event{}, fmt.Errorf("messages: no catalog message for %T", ev)
}
