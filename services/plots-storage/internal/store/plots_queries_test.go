package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// TestPlotQueries claims, releases and claims again cells through each
// adapter and checks every read against the claimed cells as the test
// keeps them, both on the adapter as written and on a second one opened on
// the stored plots (as a restarted process opens them): the list walked
// page by page at several sizes, the claimed cells of squares all over the
// grid's corners and middle, the nearest free cells, the count, owners,
// reads by id.
func TestPlotQueries(t *testing.T) {
	testkit.EachAdapter(t, newMongoPlots, newMirroredPlots, testPlotQueries)
}

func testPlotQueries(t *testing.T, kit *testkit.Kit, open func() plotsAdapter) {
	ctx := kit.Ctx()
	written := ensured(t, open())
	rng := rand.New(rand.NewPCG(14, 2))
	var cells []domain.Coordinates
	claimed := map[domain.Coordinates]domain.Plot{}
	for i := range 80 {
		// clustered near the origin and near the far corner, so squares
		// there are crowded and clipped
		c := domain.Coordinates{X: rng.IntN(6), Y: rng.IntN(6)}
		if i%2 == 1 {
			c = domain.Coordinates{X: domain.GridMax - rng.IntN(5), Y: domain.GridMax - rng.IntN(5)}
		}
		who := domain.Agent{ID: fmt.Sprintf("agent_%02d", i), Name: fmt.Sprintf("Agent %d", i)}
		p, err := written.Change(ctx, c, claimBy(who))
		if err != nil {
			if _, held := claimed[c]; !held {
				t.Fatalf("claim of the free cell %v: %v", c, err)
			}
			continue // taken already
		}
		claimed[c] = p
		cells = append(cells, c)
		if i%5 == 0 {
			if _, err := written.Change(ctx, c, release); err != nil {
				t.Fatal(err)
			}
			delete(claimed, c)
		}
	}
	// what the reads must answer, from the cells the test claimed
	inGrid := slices.SortedFunc(func(yield func(domain.Plot) bool) {
		for _, p := range claimed {
			if !yield(p) {
				return
			}
		}
	}, func(a, b domain.Plot) int {
		return cmp.Or(cmp.Compare(a.Cell.X, b.Cell.X), cmp.Compare(a.Cell.Y, b.Cell.Y))
	})
	claimedIn := func(_ context.Context, sq domain.Square) ([]domain.Coordinates, error) {
		var out []domain.Coordinates
		for c := range claimed {
			if c.X >= sq.MinX && c.X <= sq.MaxX && c.Y >= sq.MinY && c.Y <= sq.MaxY {
				out = append(out, c)
			}
		}
		return out, nil
	}
	agree := func(what string, got, want any, gerr error) {
		t.Helper()
		if gerr != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:\n got %v %v\nwant %v", what, got, gerr, want)
		}
	}
	for name, s := range map[string]plotsAdapter{"as written": written, "opened on the stored plots": ensured(t, open())} {
		got, gerr := s.CountClaimed(ctx)
		agree(name+": count", got, int64(len(claimed)), gerr)
		tenancies := map[string]bool{}
		for _, p := range claimed {
			tenancies[p.Tenancy] = true
		}
		gt, gerr := s.Tenancies(ctx)
		agree(name+": tenancies", gt, tenancies, gerr)
		for _, size := range []int{1, 3, 10, 100} {
			var after *domain.Coordinates
			for page, from := 0, 0; ; page++ {
				want := inGrid[from:min(from+size, len(inGrid))]
				got, gerr := s.ListClaimed(ctx, after, size)
				agree(fmt.Sprintf("%s: list size %d page %d", name, size, page), got, want, gerr)
				if len(want) < size {
					break
				}
				after, from = &want[len(want)-1].Cell, from+size
			}
		}
		sq := func(minX, minY, maxX, maxY int) domain.Square {
			return domain.Square{MinX: minX, MinY: minY, MaxX: maxX, MaxY: maxY}
		}
		top := domain.GridMax
		for _, sq := range []domain.Square{sq(0, 0, 3, 3), sq(0, 0, 5, 5), sq(2, 1, 4, 5), sq(0, 0, top, top),
			sq(top-4, top-3, top, top), sq(400, 400, 600, 600)} {
			got, gerr := s.ClaimedIn(ctx, sq)
			want, _ := claimedIn(ctx, sq)
			// MongoDB returns the square's cells in no promised order
			agree(fmt.Sprintf("%s: claimed in %+v", name, sq), set(got), set(want), gerr)
		}
		at := func(x, y int) domain.Coordinates { return domain.Coordinates{X: x, Y: y} }
		for _, near := range []domain.Coordinates{at(0, 0), at(2, 3), at(5, 5), at(6, 2), at(top, top), at(top-4, top-2), at(500, 500)} {
			for _, limit := range []int{1, 20, 100} {
				got, gerr := s.NearestFree(ctx, near, limit)
				want, werr := domain.NearestAvailable(ctx, near, limit, claimedIn)
				if werr != nil {
					t.Fatal(werr)
				}
				agree(fmt.Sprintf("%s: nearest %v limit %d", name, near, limit), got, want, gerr)
			}
		}
		for i, c := range cells {
			got, gerr := s.Get(ctx, c.PlotID())
			if want, held := claimed[c]; held {
				agree(name+": get "+c.PlotID(), got, want, gerr)
			} else if !errors.Is(gerr, domain.ErrNotFound) {
				t.Fatalf("%s: get the free cell %s: %+v %v, want not found", name, c.PlotID(), got, gerr)
			}
			owner := fmt.Sprintf("agent_%02d", i)
			gotO, gerr := s.OwnedBy(ctx, owner)
			var wantO *domain.Plot
			for _, p := range claimed {
				if p.Owner == owner {
					wantO = &p
				}
			}
			if wantO != nil {
				agree(name+": owned by "+owner, gotO, *wantO, gerr)
			} else if !errors.Is(gerr, domain.ErrNotFound) {
				t.Fatalf("%s: owned by %s, who holds none: %+v %v, want not found", name, owner, gotO, gerr)
			}
		}
	}
}

func set(cs []domain.Coordinates) map[domain.Coordinates]bool {
	out := map[domain.Coordinates]bool{}
	for _, c := range cs {
		out[c] = true
	}
	return out
}
