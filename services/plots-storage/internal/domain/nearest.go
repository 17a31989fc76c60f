package domain

import (
	"context"
	"slices"
)

// Square is an inclusive range of cells, already clipped to the grid.
type Square struct {
	MinX, MinY, MaxX, MaxY int
}

// around returns the cells within Chebyshev distance r of c, clipped to the grid.
func around(c Coordinates, r int) Square {
	return Square{
		MinX: max(c.X-r, GridMin), MinY: max(c.Y-r, GridMin),
		MaxX: min(c.X+r, GridMax), MaxY: min(c.Y+r, GridMax),
	}
}

func (s Square) coversGrid() bool {
	return s.MinX == GridMin && s.MinY == GridMin && s.MaxX == GridMax && s.MaxY == GridMax
}

// ClaimedIn returns the claimed cells inside a square (the store answers it).
type ClaimedIn func(ctx context.Context, s Square) ([]Coordinates, error)

// NearestAvailable returns up to limit unclaimed cells ordered by Euclidean
// distance from near, ties by x then y (CONTRACT §11).
//
// It looks at growing squares around near instead of the whole grid: every
// cell outside the square of radius r is at distance ≥ r+1, so a free cell
// inside it strictly closer than r+1 can be placed in its final order.
// The square doubles until enough cells are certain, so a sparse grid costs a
// few small lookups and a crowded one a handful more.
func NearestAvailable(ctx context.Context, near Coordinates, limit int, claimedIn ClaimedIn) ([]Coordinates, error) {
	if limit <= 0 {
		return []Coordinates{}, nil
	}
	type candidate struct {
		Coordinates
		d2 int
	}
	for r := initialRadius(limit); ; r *= 2 {
		sq := around(near, r)
		claimed, err := claimedIn(ctx, sq)
		if err != nil {
			return nil, err
		}
		taken := make(map[Coordinates]struct{}, len(claimed))
		for _, c := range claimed {
			taken[c] = struct{}{}
		}
		certain := (r + 1) * (r + 1)
		whole := sq.coversGrid()
		var found []candidate
		for x := sq.MinX; x <= sq.MaxX; x++ {
			for y := sq.MinY; y <= sq.MaxY; y++ {
				c := Coordinates{X: x, Y: y}
				if _, ok := taken[c]; ok {
					continue
				}
				dx, dy := x-near.X, y-near.Y
				d2 := dx*dx + dy*dy
				if whole || d2 < certain {
					found = append(found, candidate{c, d2})
				}
			}
		}
		if len(found) < limit && !whole {
			continue
		}
		slices.SortFunc(found, func(a, b candidate) int {
			if a.d2 != b.d2 {
				return a.d2 - b.d2
			}
			if a.X != b.X {
				return a.X - b.X
			}
			return a.Y - b.Y
		})
		out := make([]Coordinates, 0, min(limit, len(found)))
		for _, f := range found[:min(limit, len(found))] {
			out = append(out, f.Coordinates)
		}
		return out, nil
	}
}

// initialRadius is the radius whose circle holds about limit cells on an empty grid.
func initialRadius(limit int) int {
	r := 1
	for 3*r*r < limit {
		r++
	}
	return r
}
