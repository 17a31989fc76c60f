// Package events turns plots-storage's changes into the catalog's event
// messages (proto/plots/v1) and names the events it consumes.
package events

import (
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"sharedworld.dev/pkg/citizens"
	pkgevents "sharedworld.dev/pkg/events"
	plotsv1 "sharedworld.dev/proto/plots/v1"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// Source is the CloudEvents source of this service's events.
const Source = "/services/plots-storage"

// Consumed lists the topics the service reads: citizen.* keeps its citizens
// projection current.
var Consumed = citizens.Topics

// ClaimedPlot describes a claim for the event.
type ClaimedPlot struct {
	PlotID      string
	Cell        domain.Coordinates
	Owner       string
	DisplayName string
	At          time.Time
	Version     uint64
}

// PlotClaimed is plot.claimed, keyed by plot id.
func PlotClaimed(p ClaimedPlot) (pkgevents.Event, error) {
	return pkgevents.New(Source, p.PlotID, &plotsv1.PlotClaimed{
		PlotId: p.PlotID, X: int32(p.Cell.X), Y: int32(p.Cell.Y), OwnerAgentId: p.Owner,
		DisplayName: p.DisplayName, ClaimedAt: timestamppb.New(p.At), Version: p.Version,
	}, p.At)
}

// PlotReleased is plot.released, keyed by plot id.
func PlotReleased(plotID string, cell domain.Coordinates, owner string, at time.Time, version uint64) (pkgevents.Event, error) {
	return pkgevents.New(Source, plotID, &plotsv1.PlotReleased{
		PlotId: plotID, X: int32(cell.X), Y: int32(cell.Y), OwnerAgentId: owner,
		ReleasedAt: timestamppb.New(at), Version: version,
	}, at)
}

// GardenWrite describes a garden write for the event.
type GardenWrite struct {
	Verb      domain.Verb
	Path      string
	AgentID   string
	AgentName string
	Files     int64
	At        time.Time
}

// Garden is garden.planted or garden.tended, keyed by the commons plot id so
// that the garden's events stay in order.
func Garden(w GardenWrite) (pkgevents.Event, error) {
	at := timestamppb.New(w.At)
	if w.Verb == domain.Planted {
		return pkgevents.New(Source, domain.CommonsPlotID, &plotsv1.GardenPlanted{
			PlotId: domain.CommonsPlotID, Path: w.Path, AgentId: w.AgentID, AgentName: w.AgentName, GardenFiles: w.Files, At: at,
		}, w.At)
	}
	return pkgevents.New(Source, domain.CommonsPlotID, &plotsv1.GardenTended{
		PlotId: domain.CommonsPlotID, Path: w.Path, AgentId: w.AgentID, AgentName: w.AgentName, GardenFiles: w.Files, At: at,
	}, w.At)
}
