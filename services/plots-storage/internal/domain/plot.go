package domain

import (
	"crypto/rand"
	"encoding/hex"
	"time"

	"sharedworld.dev/pkg/clock"
)

// CommonsTenancy is the commons' one and only tenancy: it is never abandoned.
const CommonsTenancy = "commons"

// Plot is a cell of the grid as stored: free, or held by one citizen for
// one tenancy. A cell's record is created by its first claim and kept from
// then on, so every claim and release of the cell is a new version of one
// record and its events keep their order under one rising version.
type Plot struct {
	ID          string
	Cell        Coordinates
	Claimed     bool
	Owner       string
	DisplayName string
	ClaimedAt   time.Time
	// Tenancy names this holding of the cell; files, usage and permissions
	// hang off it, so the next holder of the cell starts afresh.
	Tenancy string
	// Version counts the record's changes; storage keeps it.
	Version uint64
}

// NewTenancy draws the id of a new tenancy.
func NewTenancy() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go ≥ 1.24)
	return hex.EncodeToString(b)
}

// FreeCell is the record of a cell nobody has claimed yet.
func FreeCell(c Coordinates) Plot { return Plot{ID: c.PlotID(), Cell: c} }

// Access is the plot as the access rules see it, with its permissions.
func (p Plot) Access(perms Permissions) PlotAccess {
	return PlotAccess{ID: p.ID, Owner: p.Owner, Permissions: perms}
}

// Claim gives the cell to by for a new tenancy (CONTRACT §4): a held cell is
// 409, naming the plot when by holds it already. It returns plot.claimed
// with the version the claim makes.
func (p *Plot) Claim(by Agent, tenancy string, now time.Time) (Event, error) {
	if p.Claimed {
		if p.Owner == by.ID {
			return nil, AlreadyOwner(p.ID)
		}
		return nil, CellTaken(p.Cell)
	}
	p.Claimed, p.Owner, p.DisplayName = true, by.ID, by.Name
	p.ClaimedAt, p.Tenancy = clock.Stored(now), tenancy
	return PlotClaimed{PlotID: p.ID, Cell: p.Cell, Owner: by.ID, DisplayName: by.Name, At: p.ClaimedAt, Version: p.Version + 1}, nil
}

// HeldBy reports whether agentID holds the plot now.
func (p Plot) HeldBy(agentID string) bool { return p.Claimed && p.Owner == agentID }

// Release frees the cell and returns plot.released with the version the
// release makes; the tenancy it ends is the caller's to clean up.
func (p *Plot) Release(now time.Time) Event {
	ev := PlotReleased{PlotID: p.ID, Cell: p.Cell, Owner: p.Owner, At: clock.Stored(now), Version: p.Version + 1}
	*p = Plot{ID: p.ID, Cell: p.Cell, Version: p.Version}
	return ev
}
