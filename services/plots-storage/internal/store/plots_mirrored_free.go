package store

import (
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/plots-storage/internal/domain"
	"sharedworld.dev/services/plots-storage/internal/freecells"
)

// freeCells keeps the copy's claimed cells in a quadtree of free-cell
// counts (freecells), which the nearest-free search walks instead of the
// claimed cells of growing squares: from inside a crowded region those
// squares held every claim around the point, the quadtree skips them as
// full squares. The Mirror calls it under its write lock; reads go
// through View.
type freeCells struct{ tree *freecells.Quadtree }

var _ mongox.Keeper[plotDoc] = (*freeCells)(nil)

func (f *freeCells) Add(d *plotDoc) {
	if d.Claimed {
		f.tree.Set(d.cell(), true)
	}
}

func (f *freeCells) Remove(d *plotDoc) {
	if d.Claimed {
		f.tree.Set(d.cell(), false)
	}
}

func (f *freeCells) Replace(old, d *plotDoc) {
	f.Remove(old)
	f.Add(d)
}

func (f *freeCells) Reset(rows map[string]*plotDoc) {
	claimed := make([]domain.Coordinates, 0, len(rows))
	for _, d := range rows {
		if d.Claimed {
			claimed = append(claimed, d.cell())
		}
	}
	f.tree.Reset(claimed)
}

func (d *plotDoc) cell() domain.Coordinates { return domain.Coordinates{X: d.X, Y: d.Y} }

// nearestFree is NearestFree's query on the copy.
func (m *plotMirror) nearestFree(near domain.Coordinates, limit int) []domain.Coordinates {
	var out []domain.Coordinates
	m.View(func() { out = m.free.tree.Nearest(near, limit) })
	return out
}
