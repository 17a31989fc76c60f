package domain

import "time"

// Event is something a change of a plot or of the garden tells the world;
// the messages adapter turns each into its catalog message (proto/plots/v1).
type Event interface{ plotsEvent() }

// PlotClaimed: a citizen (or the system, for the commons) claimed a cell.
type PlotClaimed struct {
	PlotID      string
	Cell        Coordinates
	Owner       string
	DisplayName string
	At          time.Time
	Version     uint64
}

// PlotReleased: the holder of a cell abandoned it.
type PlotReleased struct {
	PlotID  string
	Cell    Coordinates
	Owner   string
	At      time.Time
	Version uint64
}

// GardenChanged: a citizen planted or tended a garden file; Files is how
// many files the garden holds after the write.
type GardenChanged struct {
	Verb      Verb
	Path      string
	AgentID   string
	AgentName string
	Files     int64
	At        time.Time
}

// GardenRemoved: a garden file was removed, by its planter (AgentID) or
// by a curator (Role); PlantedBy is who planted it, empty for the index.
// Files is how many files the garden holds after the removal.
type GardenRemoved struct {
	Path      string
	AgentID   string
	Role      Role
	PlantedBy string
	Files     int64
	At        time.Time
}

func (PlotClaimed) plotsEvent()   {}
func (PlotReleased) plotsEvent()  {}
func (GardenChanged) plotsEvent() {}
func (GardenRemoved) plotsEvent() {}
