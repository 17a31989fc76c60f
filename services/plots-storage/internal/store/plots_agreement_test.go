package store

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// TestPlotQueriesAgreeWithTheQueryPath claims, releases and claims again
// cells through the store of the kit's mode (embedded: the in-memory copy
// answers) and compares every read with the MongoDB query path (a store on
// a shared handle of the same database) and with a store that loads the
// copy afresh, as a restart does: the list walked page by page at several
// sizes, the claimed cells of squares all over the grid's corners and
// middle, the nearest free cells, the count, owners, reads by id.
func TestPlotQueriesAgreeWithTheQueryPath(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	written := newPlots(t, kit.DB)
	rng := rand.New(rand.NewPCG(14, 2))
	var cells []domain.Coordinates
	for i := range 80 {
		// clustered near the origin and near the far corner, so squares
		// there are crowded and clipped
		c := domain.Coordinates{X: rng.IntN(6), Y: rng.IntN(6)}
		if i%2 == 1 {
			c = domain.Coordinates{X: domain.GridMax - rng.IntN(5), Y: domain.GridMax - rng.IntN(5)}
		}
		who := domain.Agent{ID: fmt.Sprintf("agent_%02d", i), Name: fmt.Sprintf("Agent %d", i)}
		if _, err := written.Change(ctx, c, claimBy(who)); err != nil {
			continue // taken already
		}
		cells = append(cells, c)
		if i%5 == 0 {
			if _, err := written.Change(ctx, c, release); err != nil {
				t.Fatal(err)
			}
		}
	}
	query := NewPlots(mongox.NewDB(kit.DB.Database, mongox.Shared), nil)
	reloaded := newPlots(t, mongox.NewDB(kit.DB.Database, kit.DB.Mode()))
	agree := func(what string, got, want any, gerr, werr error) {
		t.Helper()
		if gerr != nil || werr != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:\n got %v %v\nwant %v %v", what, got, gerr, want, werr)
		}
	}
	for name, s := range map[string]*Plots{"as written": written, "loaded at start": reloaded} {
		got, gerr := s.CountClaimed(ctx)
		want, werr := query.CountClaimed(ctx)
		agree(name+": count", got, want, gerr, werr)
		gt, gerr := s.Tenancies(ctx)
		wt, werr := query.Tenancies(ctx)
		agree(name+": tenancies", gt, wt, gerr, werr)
		for _, size := range []int{1, 3, 10, 100} {
			var after *domain.Coordinates
			for page := 0; ; page++ {
				got, gerr := s.ListClaimed(ctx, after, size)
				want, werr := query.ListClaimed(ctx, after, size)
				agree(fmt.Sprintf("%s: list size %d page %d", name, size, page), got, want, gerr, werr)
				if len(want) < size {
					break
				}
				after = &want[len(want)-1].Cell
			}
		}
		sq := func(minX, minY, maxX, maxY int) domain.Square {
			return domain.Square{MinX: minX, MinY: minY, MaxX: maxX, MaxY: maxY}
		}
		top := domain.GridMax
		for _, sq := range []domain.Square{sq(0, 0, 3, 3), sq(0, 0, 5, 5), sq(2, 1, 4, 5), sq(0, 0, top, top),
			sq(top-4, top-3, top, top), sq(400, 400, 600, 600)} {
			got, gerr := s.ClaimedIn(ctx, sq)
			want, werr := query.ClaimedIn(ctx, sq)
			// MongoDB returns the square's cells in no promised order
			agree(fmt.Sprintf("%s: claimed in %+v", name, sq), set(got), set(want), gerr, werr)
		}
		at := func(x, y int) domain.Coordinates { return domain.Coordinates{X: x, Y: y} }
		for _, near := range []domain.Coordinates{at(0, 0), at(2, 3), at(top, top), at(500, 500)} {
			for _, limit := range []int{1, 20, 100} {
				got, gerr := domain.NearestAvailable(ctx, near, limit, s.ClaimedIn)
				want, werr := domain.NearestAvailable(ctx, near, limit, query.ClaimedIn)
				agree(fmt.Sprintf("%s: nearest %v limit %d", name, near, limit), got, want, gerr, werr)
			}
		}
		for i, c := range cells {
			got, gerr := s.Get(ctx, c.PlotID())
			want, werr := query.Get(ctx, c.PlotID())
			if gerr != nil || werr != nil {
				agree(name+": get error "+c.PlotID(), fmt.Sprint(gerr), fmt.Sprint(werr), nil, nil)
			} else {
				agree(name+": get "+c.PlotID(), got, want, nil, nil)
			}
			owner := fmt.Sprintf("agent_%02d", i)
			gotO, gerr := s.OwnedBy(ctx, owner)
			wantO, werr := query.OwnedBy(ctx, owner)
			agree(name+": owned by "+owner, fmt.Sprint(gotO, gerr), fmt.Sprint(wantO, werr), nil, nil)
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
