package domain

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// grid is an in-memory claimed set standing in for the store's answer.
type grid map[Coordinates]bool

func (g grid) claimedIn(_ context.Context, s Square) ([]Coordinates, error) {
	var out []Coordinates
	for c := range g {
		if c.X >= s.MinX && c.X <= s.MaxX && c.Y >= s.MinY && c.Y <= s.MaxY {
			out = append(out, c)
		}
	}
	return out, nil
}

// bruteNearest orders the whole grid: the definition the search must match.
func bruteNearest(g grid, near Coordinates, limit int) []Coordinates {
	all := make([]Coordinates, 0, GridCells)
	for x := GridMin; x <= GridMax; x++ {
		for y := GridMin; y <= GridMax; y++ {
			if c := (Coordinates{x, y}); !g[c] {
				all = append(all, c)
			}
		}
	}
	d2 := func(c Coordinates) int { dx, dy := c.X-near.X, c.Y-near.Y; return dx*dx + dy*dy }
	slices.SortFunc(all, func(a, b Coordinates) int {
		if da, db := d2(a), d2(b); da != db {
			return da - db
		}
		if a.X != b.X {
			return a.X - b.X
		}
		return a.Y - b.Y
	})
	return all[:min(limit, len(all))]
}

func TestNearestAvailableOrder(t *testing.T) {
	t.Parallel()
	commonsOnly := grid{Commons: true}
	cases := []struct {
		name  string
		g     grid
		near  Coordinates
		limit int
		want  []Coordinates
	}{
		{"§11 available: from the origin, ties by x then y", commonsOnly, Coordinates{0, 0}, 5,
			[]Coordinates{{0, 1}, {1, 0}, {1, 1}, {0, 2}, {2, 0}}},
		{"§11 available: around an inner point, ties by x then y", commonsOnly, Coordinates{10, 10}, 6,
			[]Coordinates{{10, 10}, {9, 10}, {10, 9}, {10, 11}, {11, 10}, {9, 9}}},
		{"§11 available: claimed cells are skipped", grid{Commons: true, {10, 10}: true, {9, 10}: true}, Coordinates{10, 10}, 3,
			[]Coordinates{{10, 9}, {10, 11}, {11, 10}}},
		{"§11 available: the far corner", commonsOnly, Coordinates{999, 999}, 3,
			[]Coordinates{{999, 999}, {998, 999}, {999, 998}}},
		{"§11 available: a zero limit lists nothing", commonsOnly, Coordinates{5, 5}, 0, []Coordinates{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := NearestAvailable(context.Background(), tc.near, tc.limit, tc.g.claimedIn)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestNearestAvailableMatchesBruteForce compares the growing-square search with
// ordering every cell, on crowded neighbourhoods where the square must grow.
func TestNearestAvailableMatchesBruteForce(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(4, 11))
	for trial := range 6 {
		near := Coordinates{rng.IntN(GridSide), rng.IntN(GridSide)}
		if trial == 0 {
			near = Coordinates{0, 0}
		}
		g := grid{Commons: true}
		// A dense disc of claims around the point, plus scattered ones.
		radius := 5 + rng.IntN(40)
		for x := near.X - radius; x <= near.X+radius; x++ {
			for y := near.Y - radius; y <= near.Y+radius; y++ {
				if c := (Coordinates{x, y}); c.InBounds() && rng.IntN(10) < 9 {
					g[c] = true
				}
			}
		}
		for range 2000 {
			g[Coordinates{rng.IntN(GridSide), rng.IntN(GridSide)}] = true
		}
		limit := 1 + rng.IntN(100)
		got, err := NearestAvailable(context.Background(), near, limit, g.claimedIn)
		if err != nil {
			t.Fatal(err)
		}
		if want := bruteNearest(g, near, limit); !slices.Equal(got, want) {
			t.Fatalf("§11 available: near %v limit %d: got %v, want %v", near, limit, got, want)
		}
	}
}

func TestNearestAvailableNearlyFullGrid(t *testing.T) {
	t.Parallel()
	free := []Coordinates{{999, 0}, {500, 500}, {0, 999}}
	g := make(grid, GridCells)
	for x := GridMin; x <= GridMax; x++ {
		for y := GridMin; y <= GridMax; y++ {
			g[Coordinates{x, y}] = true
		}
	}
	for _, c := range free {
		delete(g, c)
	}
	got, err := NearestAvailable(context.Background(), Coordinates{0, 0}, 100, g.claimedIn)
	if err != nil {
		t.Fatal(err)
	}
	// (0,999) and (999,0) tie at distance 999; x breaks the tie.
	want := []Coordinates{{500, 500}, {0, 999}, {999, 0}}
	if !slices.Equal(got, want) {
		t.Fatalf("§11 available: got %v, want %v (fewer free cells than the limit)", got, want)
	}
}

func TestNearestAvailablePassesLookupErrors(t *testing.T) {
	t.Parallel()
	boom := errors.New("store down")
	_, err := NearestAvailable(context.Background(), Coordinates{1, 1}, 5,
		func(context.Context, Square) ([]Coordinates, error) { return nil, boom })
	if !errors.Is(err, boom) {
		t.Fatalf("want the lookup error, got %v", err)
	}
}
