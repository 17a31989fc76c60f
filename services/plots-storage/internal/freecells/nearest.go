package freecells

import "sharedworld.dev/services/plots-storage/internal/domain"

// Nearest returns up to limit free cells ordered by Euclidean distance
// from near, ties by x then y (CONTRACT §11), as domain.NearestAvailable
// orders them.
//
// It walks the quadtree best first: a queue holds squares by the least
// squared distance from near to any of their cells and cells by their
// own, a square before a cell at the same distance (it may hold a cell
// at that distance with a smaller x), and full squares never enter it.
// A cell leaves the queue only when no square left can hold a cell
// before it, so cells leave in their final order. The squares opened are
// those within the answer's distance that hold a free cell: around a
// crowded region, the ones on its edge, a few per level.
func (q *Quadtree) Nearest(near domain.Coordinates, limit int) []domain.Coordinates {
	out := make([]domain.Coordinates, 0, max(min(limit, q.Free()), 0))
	if limit <= 0 || q.Free() == 0 {
		return out
	}
	var h queue
	h.push(entry{d2: 0, level: levels})
	for len(h) > 0 && len(out) < limit {
		e := h.pop()
		if e.level == 0 {
			out = append(out, domain.Coordinates{X: e.x, Y: e.y})
			continue
		}
		k := e.level - 1
		for _, d := range [4][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
			x, y := 2*e.x+d[0], 2*e.y+d[1]
			if q.count(k, x, y) == 0 {
				continue
			}
			h.push(entry{d2: distance2(near, k, x, y), level: k, x: x, y: y})
		}
	}
	return out
}

// distance2 is the least squared distance from near to a cell of square
// (x, y) of level k.
func distance2(near domain.Coordinates, k, x, y int) int {
	gap := func(p, lo, hi int) int {
		switch {
		case p < lo:
			return lo - p
		case p > hi:
			return p - hi
		}
		return 0
	}
	size := 1 << k
	dx := gap(near.X, x*size, x*size+size-1)
	dy := gap(near.Y, y*size, y*size+size-1)
	return dx*dx + dy*dy
}

// entry is a square of the queue (level ≥ 1) or a cell (level 0), at
// (x, y) among the squares of its level.
type entry struct {
	d2, level, x, y int
}

// before is the queue's order: distance, then squares before cells (a
// higher level first, so the coarser square opens first), then x, then y.
func (a entry) before(b entry) bool {
	if a.d2 != b.d2 {
		return a.d2 < b.d2
	}
	if a.level != b.level {
		return a.level > b.level
	}
	if a.x != b.x {
		return a.x < b.x
	}
	return a.y < b.y
}

// queue is a binary min-heap of entries by before.
type queue []entry

func (h *queue) push(e entry) {
	*h = append(*h, e)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s[i].before(s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *queue) pop() entry {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(s) && s[l].before(s[m]) {
			m = l
		}
		if r < len(s) && s[r].before(s[m]) {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}
