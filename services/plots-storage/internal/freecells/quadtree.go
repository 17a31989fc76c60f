// Package freecells answers "the free cells nearest a point" on the grid
// in time that follows the answer, not the claimed cells around the point.
//
// The index is a quadtree of free-cell counts over the grid padded to a
// power of two: a node holds how many free cells its square has, so a
// search skips a square that is full whatever its size, and a best-first
// walk by distance reaches the nearest free cells through the few nodes
// that straddle the edge of a crowded region. Free-space rectangles would
// need merging and splitting on every claim, and rings of per-distance
// counts still walk the cells of each ring that holds a free one; a
// claim or release here is one count per level (11 in all), and the
// counts never depend on the shape the claims make.
package freecells

import "sharedworld.dev/services/plots-storage/internal/domain"

// levels is the quadtree's height: the padded side is 1<<levels cells.
const levels = 10

const side = 1 << levels

// The padded side must hold the grid (cells off the grid are never free).
var _ [side - domain.GridSide]struct{}

// Quadtree is the grid's free cells and their counts by square. It is not
// safe for concurrent use: its keeper serialises writes and reads.
type Quadtree struct {
	// free has one bit per cell of the padded square, at y*side+x.
	free []uint64
	// counts[k] is the free cells of each square of side 1<<k (k ≥ 1),
	// row by row of squares; counts[levels] is the whole grid.
	counts [levels + 1][]int32
}

// New is the grid with every cell free.
func New() *Quadtree {
	q := &Quadtree{free: make([]uint64, side*side/64)}
	for k := 1; k <= levels; k++ {
		n := side >> k
		q.counts[k] = make([]int32, n*n)
	}
	q.Reset(nil)
	return q
}

// Reset frees every cell but those claimed.
func (q *Quadtree) Reset(claimed []domain.Coordinates) {
	clear(q.free)
	for y := domain.GridMin; y <= domain.GridMax; y++ {
		for x := domain.GridMin; x <= domain.GridMax; x++ {
			i := y*side + x
			q.free[i/64] |= 1 << (i % 64)
		}
	}
	for _, c := range claimed {
		if c.InBounds() {
			i := c.Y*side + c.X
			q.free[i/64] &^= 1 << (i % 64)
		}
	}
	// the counts, bottom up: each square is its four quarters
	for k := 1; k <= levels; k++ {
		n := side >> k
		for y := range n {
			for x := range n {
				q.counts[k][y*n+x] = q.quarters(k, x, y)
			}
		}
	}
}

// quarters sums the free cells of the four quarters of square (x, y) of level k.
func (q *Quadtree) quarters(k, x, y int) int32 {
	var sum int32
	for _, d := range [4][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
		sum += q.count(k-1, 2*x+d[0], 2*y+d[1])
	}
	return sum
}

// count is the free cells of square (x, y) of level k (level 0: one cell).
func (q *Quadtree) count(k, x, y int) int32 {
	if k == 0 {
		return int32(q.free[(y*side+x)/64] >> ((y*side + x) % 64) & 1)
	}
	return q.counts[k][y*(side>>k)+x]
}

// Set records whether c is claimed; a cell off the grid changes nothing.
func (q *Quadtree) Set(c domain.Coordinates, claimed bool) {
	if !c.InBounds() {
		return
	}
	i := c.Y*side + c.X
	was := q.free[i/64]>>(i%64)&1 == 1
	if was == !claimed {
		return
	}
	delta := int32(1)
	if claimed {
		q.free[i/64] &^= 1 << (i % 64)
		delta = -1
	} else {
		q.free[i/64] |= 1 << (i % 64)
	}
	for k := 1; k <= levels; k++ {
		q.counts[k][(c.Y>>k)*(side>>k)+c.X>>k] += delta
	}
}

// Free is how many cells of the grid are free.
func (q *Quadtree) Free() int { return int(q.counts[levels][0]) }

// IsFree reports whether c is a free cell of the grid.
func (q *Quadtree) IsFree(c domain.Coordinates) bool {
	return c.InBounds() && q.count(0, c.X, c.Y) == 1
}
