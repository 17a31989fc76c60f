package freecells

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"sharedworld.dev/services/plots-storage/internal/domain"
)

type cell = domain.Coordinates

func at(x, y int) cell { return cell{X: x, Y: y} }

// layout is a set of claimed cells; each builds one shape of the grid.
type layout struct {
	name    string
	claimed func(rng *rand.Rand) map[cell]bool
}

// square claims every cell of [x0, x1] × [y0, y1].
func square(into map[cell]bool, x0, y0, x1, y1 int) {
	for x := x0; x <= x1; x++ {
		for y := y0; y <= y1; y++ {
			into[cell{X: x, Y: y}] = true
		}
	}
}

var layouts = []layout{
	{"crowded square from (1,1)", func(*rand.Rand) map[cell]bool {
		g := map[cell]bool{domain.Commons: true}
		square(g, 1, 1, 100, 100)
		return g
	}},
	{"crowded square with holes", func(rng *rand.Rand) map[cell]bool {
		g := map[cell]bool{domain.Commons: true}
		square(g, 1, 1, 120, 120)
		for range 15 {
			delete(g, cell{X: 1 + rng.IntN(120), Y: 1 + rng.IntN(120)})
		}
		return g
	}},
	{"sparse", func(rng *rand.Rand) map[cell]bool {
		g := map[cell]bool{domain.Commons: true}
		for range 10_000 {
			g[cell{X: rng.IntN(domain.GridSide), Y: rng.IntN(domain.GridSide)}] = true
		}
		return g
	}},
	{"stripes of columns", func(*rand.Rand) map[cell]bool {
		g := map[cell]bool{domain.Commons: true}
		for x := 0; x < 200; x += 2 {
			square(g, x, 0, x, 199)
		}
		return g
	}},
	{"wide stripes of rows", func(*rand.Rand) map[cell]bool {
		g := map[cell]bool{domain.Commons: true}
		for y := 0; y < 300; y += 10 {
			square(g, 0, y, 299, y+6)
		}
		return g
	}},
	{"checkerboard", func(*rand.Rand) map[cell]bool {
		g := map[cell]bool{}
		for x := range 150 {
			for y := range 150 {
				if (x+y)%2 == 0 {
					g[cell{X: x, Y: y}] = true
				}
			}
		}
		return g
	}},
	{"a crowded disc and scattered claims", func(rng *rand.Rand) map[cell]bool {
		g := map[cell]bool{domain.Commons: true}
		cx, cy, r := 300+rng.IntN(400), 300+rng.IntN(400), 20+rng.IntN(40)
		for x := cx - r; x <= cx+r; x++ {
			for y := cy - r; y <= cy+r; y++ {
				if (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r && rng.IntN(20) > 0 {
					g[cell{X: x, Y: y}] = true
				}
			}
		}
		for range 2000 {
			g[cell{X: rng.IntN(domain.GridSide), Y: rng.IntN(domain.GridSide)}] = true
		}
		return g
	}},
	{"the far corner crowded", func(*rand.Rand) map[cell]bool {
		g := map[cell]bool{domain.Commons: true}
		square(g, 900, 900, domain.GridMax, domain.GridMax)
		return g
	}},
}

// bruteNearest is the definition: every free cell of the grid by
// distance, then x, then y, keeping the first limit.
func bruteNearest(claimed map[cell]bool, near cell, limit int) []cell {
	taken := make([]bool, domain.GridCells)
	for c := range claimed {
		if c.InBounds() {
			taken[c.X*domain.GridSide+c.Y] = true
		}
	}
	type ranked struct {
		c  cell
		d2 int
	}
	less := func(a, b ranked) bool {
		if a.d2 != b.d2 {
			return a.d2 < b.d2
		}
		if a.c.X != b.c.X {
			return a.c.X < b.c.X
		}
		return a.c.Y < b.c.Y
	}
	best := make([]ranked, 0, limit+1)
	for x := domain.GridMin; x <= domain.GridMax; x++ {
		for y := domain.GridMin; y <= domain.GridMax; y++ {
			c := cell{X: x, Y: y}
			if taken[x*domain.GridSide+y] {
				continue
			}
			r := ranked{c, (x-near.X)*(x-near.X) + (y-near.Y)*(y-near.Y)}
			if len(best) == limit && !less(r, best[limit-1]) {
				continue
			}
			i, _ := slices.BinarySearchFunc(best, r, func(a, b ranked) int {
				if less(a, b) {
					return -1
				}
				return 1
			})
			best = slices.Insert(best, i, r)
			if len(best) > limit {
				best = best[:limit]
			}
		}
	}
	out := make([]cell, len(best))
	for i, r := range best {
		out[i] = r.c
	}
	return out
}

// points are where the search starts on a layout: fixed ones inside, at
// the edge of and outside the crowded regions above, and random ones.
func points(rng *rand.Rand) []cell {
	ps := []cell{at(0, 0), at(1, 1), at(51, 51), at(50, 50), at(100, 100), at(101, 50), at(100, 1), at(60, 120), at(121, 60),
		at(150, 150), at(199, 100), at(200, 200), at(0, 150), at(150, 0), at(305, 150), at(499, 500), at(950, 950), at(899, 950),
		at(domain.GridMax, domain.GridMax), at(domain.GridMax, 0), at(0, domain.GridMax)}
	for range 6 {
		ps = append(ps, cell{X: rng.IntN(domain.GridSide), Y: rng.IntN(domain.GridSide)})
	}
	return ps
}

// TestNearestAgreesWithBruteForce is §11's order on every layout, from
// every point, at small and large limits: the quadtree's answer must be
// the brute-force one, cell for cell.
func TestNearestAgreesWithBruteForce(t *testing.T) {
	t.Parallel()
	for li, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(28, uint64(li)))
			claimed := l.claimed(rng)
			q := New()
			q.Reset(slices.Collect(func(yield func(cell) bool) {
				for c := range claimed {
					if !yield(c) {
						return
					}
				}
			}))
			if want := domain.GridCells - len(claimed); q.Free() != want {
				t.Fatalf("free: got %d, want %d", q.Free(), want)
			}
			for _, near := range points(rng) {
				// the first cells of the definition's order are its answer at any smaller limit
				order := bruteNearest(claimed, near, 100)
				for _, limit := range []int{1, 7, 100} {
					got, want := q.Nearest(near, limit), order[:limit]
					if !slices.Equal(got, want) {
						t.Fatalf("§11 available near %v limit %d:\n got %v\nwant %v", near, limit, got, want)
					}
				}
			}
		})
	}
}

// TestSetKeepsTheCounts claims and releases cells one by one and checks
// the answer and the free count against a quadtree reset from scratch.
func TestSetKeepsTheCounts(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(28, 99))
	q, claimed := New(), map[cell]bool{}
	for i := range 20_000 {
		c := cell{X: rng.IntN(64), Y: rng.IntN(64)}
		if i%97 == 0 {
			c = cell{X: domain.GridMax + 1, Y: 3} // off the grid: ignored
		}
		take := rng.IntN(3) > 0
		q.Set(c, take)
		if take && c.InBounds() {
			claimed[c] = true
		} else {
			delete(claimed, c)
		}
	}
	fresh := New()
	for c := range claimed {
		fresh.Set(c, true)
	}
	if q.Free() != domain.GridCells-len(claimed) {
		t.Fatalf("free: got %d, want %d", q.Free(), domain.GridCells-len(claimed))
	}
	if !slices.Equal(q.free, fresh.free) {
		t.Fatal("the free cells differ from those of the same claims made at once")
	}
	for k := 1; k <= levels; k++ {
		if !slices.Equal(q.counts[k], fresh.counts[k]) {
			t.Fatalf("the counts of level %d differ from those of the same claims made at once", k)
		}
	}
	for _, near := range []cell{at(32, 32), at(0, 0), at(70, 10)} {
		if got, want := q.Nearest(near, 50), bruteNearest(claimed, near, 50); !slices.Equal(got, want) {
			t.Fatalf("§11 available near %v after claims and releases:\n got %v\nwant %v", near, got, want)
		}
	}
}

func TestNearestEdges(t *testing.T) {
	t.Parallel()
	full := New()
	all := make([]cell, 0, domain.GridCells)
	for x := range domain.GridSide {
		for y := range domain.GridSide {
			all = append(all, cell{X: x, Y: y})
		}
	}
	full.Reset(all)
	cases := []struct {
		name  string
		q     *Quadtree
		near  cell
		limit int
		want  []cell
	}{
		{"§11 available: a zero limit lists nothing", New(), at(5, 5), 0, []cell{}},
		{"§11 available: a full grid lists nothing", full, at(5, 5), 10, []cell{}},
		{"§11 available: from the origin, ties by x then y", New(), at(0, 0), 5, []cell{at(0, 0), at(0, 1), at(1, 0), at(1, 1), at(0, 2)}},
		{"§11 available: never off the grid", New(), at(domain.GridMax, domain.GridMax), 3,
			[]cell{at(domain.GridMax, domain.GridMax), at(domain.GridMax-1, domain.GridMax), at(domain.GridMax, domain.GridMax-1)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tc.q.Nearest(tc.near, tc.limit); !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// BenchmarkNearest is the nearest free cells from the middle of 10,000
// claimed cells in a square from (1, 1), and from a sparse point.
func BenchmarkNearest(b *testing.B) {
	claimed := []cell{domain.Commons}
	for x := 1; x <= 100; x++ {
		for y := 1; y <= 100; y++ {
			claimed = append(claimed, at(x, y))
		}
	}
	q := New()
	q.Reset(claimed)
	for _, near := range []cell{at(51, 51), at(500, 500)} {
		for _, limit := range []int{20, 100} {
			b.Run(fmt.Sprintf("near %d,%d limit %d", near.X, near.Y, limit), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					q.Nearest(near, limit)
				}
			})
		}
	}
}
