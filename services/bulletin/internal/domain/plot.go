package domain

import "time"

// The commons plot (CONTRACT §4).
const (
	CommonsPlotID      = "plot_0_0"
	CommonsDisplayName = "The Commons"
)

// Plot is the projection of one grid cell that has been claimed at least
// once. A released plot stays as a record (Claimed false) so that its
// version keeps guarding against an older claim arriving late.
type Plot struct {
	PlotID       string
	X, Y         int
	OwnerAgentID string
	DisplayName  string
	ClaimedAt    time.Time
	Claimed      bool
	Version      uint64
}

// Kind is KindPlot.
func (p Plot) Kind() RecordKind { return KindPlot }

// Key is the plot_id.
func (p Plot) Key() string { return p.PlotID }

// Revision is the plot's version.
func (p Plot) Revision() uint64 { return p.Version }

// IsCommons reports whether this is the commons plot, which is on the
// board but not counted in plots_claimed (CONTRACT §11).
func (p Plot) IsCommons() bool { return p.PlotID == CommonsPlotID }

// CountsAsClaimed reports whether the plot counts in world.plots_claimed.
func (p Plot) CountsAsClaimed() bool { return p.Claimed && !p.IsCommons() }

// CommonsPlot is the commons as it is before (and whether or not) any event
// mentions it: it exists from the world's start.
func CommonsPlot() Plot {
	return Plot{PlotID: CommonsPlotID, OwnerAgentID: SystemCommonsID, DisplayName: CommonsDisplayName, Claimed: true}
}

// ApplyClaimed takes in plot.claimed.
func (p Plot) ApplyClaimed(e PlotClaimed) (Plot, bool) {
	if e.Version <= p.Version {
		return p, false
	}
	p.X, p.Y = e.X, e.Y
	p.OwnerAgentID, p.DisplayName = e.OwnerAgentID, e.DisplayName
	p.ClaimedAt, p.Claimed, p.Version = ms(e.ClaimedAt), true, e.Version
	return p, true
}

// ApplyReleased takes in plot.released.
func (p Plot) ApplyReleased(e PlotReleased) (Plot, bool) {
	if e.Version <= p.Version {
		return p, false
	}
	p.X, p.Y = e.X, e.Y
	p.OwnerAgentID, p.DisplayName = "", ""
	p.ClaimedAt, p.Claimed, p.Version = time.Time{}, false, e.Version
	return p, true
}
