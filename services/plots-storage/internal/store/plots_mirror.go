package store

import (
	"cmp"
	"strings"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/plots-storage/internal/domain"
	"sharedworld.dev/services/plots-storage/internal/freecells"
)

// plotMirror is the plots collection in memory, MirroredPlots' copy: every
// cell document by id, the claimed cells by (x, y) — the
// "claimed_grid" index on MongoDB, which serves the list and the
// square search — the claimed cells by owner ("owner_key_unique"), and the
// free cells in a quadtree that answers the nearest-free search.
type plotMirror struct {
	*mongox.Mirror[plotDoc]
	grid, owners *mongox.Order[plotDoc]
	free         *freeCells
}

func byCell(a, b *plotDoc) int {
	if c := cmp.Compare(a.X, b.X); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Y, b.Y); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

func plotMirrorOf(db *mongox.DB) *plotMirror {
	m := mongox.MirrorOf(db, "plots", func(d *plotDoc) string { return d.ID })
	if m == nil {
		return nil
	}
	claimed := func(d *plotDoc) bool { return d.Claimed }
	return &plotMirror{Mirror: m,
		grid: m.Order("claimed_grid", byCell, claimed),
		owners: m.Order("owner", func(a, b *plotDoc) int {
			if c := strings.Compare(a.OwnerKey, b.OwnerKey); c != 0 {
				return c
			}
			return strings.Compare(a.ID, b.ID)
		}, claimed),
		free: m.Keep("free cells", func() mongox.Keeper[plotDoc] {
			return &freeCells{tree: freecells.New()}
		}).(*freeCells)}
}

// after reports whether d's cell comes after (x, y) in grid order.
func after(d *plotDoc, x, y int) bool { return d.X > x || (d.X == x && d.Y > y) }

// ownedBy is OwnedBy's lookup: the claimed cell whose owner_key is agentID.
func (m *plotMirror) ownedBy(agentID string) (plotDoc, bool) {
	var out plotDoc
	found := false
	m.owners.Ascend(func(d *plotDoc) bool { return d.OwnerKey >= agentID }, func(d *plotDoc) bool {
		out, found = *d, d.OwnerKey == agentID
		return false
	})
	return out, found
}

// claimedIn is ClaimedIn's query: one binary search per column of the
// square, then the claimed cells of that column inside it.
func (m *plotMirror) claimedIn(sq domain.Square) []domain.Coordinates {
	out := []domain.Coordinates{}
	for x := sq.MinX; x <= sq.MaxX; x++ {
		m.grid.Ascend(func(d *plotDoc) bool { return after(d, x, sq.MinY-1) }, func(d *plotDoc) bool {
			if d.X != x || d.Y > sq.MaxY {
				return false
			}
			out = append(out, domain.Coordinates{X: d.X, Y: d.Y})
			return true
		})
	}
	return out
}

// listClaimed is ListClaimed's query: claimed cells after the cell `from`
// in grid order.
func (m *plotMirror) listClaimed(from *domain.Coordinates, limit int) []domain.Plot {
	out := make([]domain.Plot, 0, max(limit, 0))
	if limit <= 0 {
		return out
	}
	var start func(*plotDoc) bool
	if from != nil {
		start = func(d *plotDoc) bool { return after(d, from.X, from.Y) }
	}
	m.grid.Ascend(start, func(d *plotDoc) bool {
		out = append(out, d.plot())
		return len(out) < limit
	})
	return out
}

func (m *plotMirror) tenancies() map[string]bool {
	out := map[string]bool{}
	m.grid.Ascend(nil, func(d *plotDoc) bool {
		out[d.Tenancy] = true
		return true
	})
	return out
}
