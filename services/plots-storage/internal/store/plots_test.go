package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/proto/catalog"
	"sharedworld.dev/services/plots-storage/internal/app"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

var claimTime = time.Date(2026, 11, 22, 9, 15, 3, 127_456_789, time.UTC)

func newPlots(t *testing.T, db *mongox.DB) *Plots {
	t.Helper()
	s := NewPlots(db, nil)
	if err := s.EnsureIndexes(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

func claimBy(who domain.Agent) func(*domain.Plot) ([]domain.Event, error) {
	return func(p *domain.Plot) ([]domain.Event, error) {
		ev, err := p.Claim(who, "t-"+who.ID, claimTime)
		if err != nil {
			return nil, err
		}
		return []domain.Event{ev}, nil
	}
}

func release(p *domain.Plot) ([]domain.Event, error) {
	return []domain.Event{p.Release(claimTime)}, nil
}

func TestPlotsRepository(t *testing.T) {
	testkit.EachAdapter(t, newMongoPlots, newMirroredPlots, func(t *testing.T, kit *testkit.Kit, open func() plotsAdapter) {
		s := ensured(t, open())
		testPlots(t, kit.Ctx(), s, func(id string) []string {
			var types []string
			for _, e := range outboxOf(t, s.OutboxCollection(), id) {
				types = append(types, e.Type)
			}
			return types
		})
	})
}

func testPlots(t *testing.T, ctx context.Context, repo app.Plots, outbox func(id string) []string) {
	ada, bob := domain.Agent{ID: "ada", Name: "Ada"}, domain.Agent{ID: "bob", Name: "Bob"}
	cell := domain.Coordinates{X: 3, Y: 4}

	t.Run("claim", func(t *testing.T) {
		p, err := repo.Change(ctx, cell, claimBy(ada))
		if err != nil || !p.Claimed || p.Owner != "ada" || p.Version != 1 || p.Tenancy != "t-ada" || p.Cell != cell {
			t.Fatalf("first claim: %+v %v", p, err)
		}
		if !p.ClaimedAt.Equal(time.Date(2026, 11, 22, 9, 15, 3, 127e6, time.UTC)) {
			t.Fatalf("claimed_at is stored to the millisecond: %v", p.ClaimedAt)
		}
		got, err := repo.Get(ctx, cell.PlotID())
		if err != nil || got != p {
			t.Fatalf("get: %+v %v, want %+v", got, err, p)
		}
		if owned, err := repo.OwnedBy(ctx, "ada"); err != nil || owned.ID != cell.PlotID() {
			t.Fatalf("owned by ada: %+v %v", owned, err)
		}
		if got := outbox(cell.PlotID()); fmt.Sprint(got) != fmt.Sprint([]string{catalog.TypePlotClaimed}) {
			t.Fatalf("one plot.claimed in the cell's outbox, got %v", got)
		}
	})
	t.Run("double claim of one cell", func(t *testing.T) {
		_, err := repo.Change(ctx, cell, claimBy(bob))
		wantKind(t, err, problem.KindConflict, "another citizen claims a held cell")
		_, err = repo.Change(ctx, cell, claimBy(ada))
		wantKind(t, err, problem.KindConflict, "the holder claims the cell again")
		if _, err := repo.Change(ctx, domain.Coordinates{X: 5, Y: 5}, claimBy(ada)); !errors.Is(err, domain.ErrHoldsAPlot) {
			t.Fatalf("a second plot for ada: want ErrHoldsAPlot, got %v", err)
		}
		if _, err := repo.Get(ctx, "plot_x5_y5"); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("the refused cell stays unclaimed: %v", err)
		}
		if got := outbox(cell.PlotID()); len(got) != 1 {
			t.Fatalf("refused claims add no event: %v", got)
		}
	})
	t.Run("abandon", func(t *testing.T) {
		p, err := repo.Change(ctx, cell, release)
		if err != nil || p.Claimed || p.Owner != "" || p.Version != 2 {
			t.Fatalf("release: %+v %v", p, err)
		}
		if _, err := repo.Get(ctx, cell.PlotID()); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("a free cell is not found: %v", err)
		}
		if _, err := repo.OwnedBy(ctx, "ada"); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("ada holds nothing: %v", err)
		}
		again, err := repo.Change(ctx, cell, claimBy(bob))
		if err != nil || again.Owner != "bob" || again.Version != 3 {
			t.Fatalf("the released cell is claimed anew at the next version: %+v %v", again, err)
		}
		want := fmt.Sprint([]string{catalog.TypePlotClaimed, catalog.TypePlotReleased, catalog.TypePlotClaimed})
		if got := outbox(cell.PlotID()); fmt.Sprint(got) != want {
			t.Fatalf("the cell's events in order: %v", got)
		}
	})
	t.Run("racing claimers of one cell: exactly one wins", func(t *testing.T) {
		for _, race := range []domain.Coordinates{{X: 7, Y: 7}, cell} { // a new cell, and a released one
			if race == cell {
				if _, err := repo.Change(ctx, cell, release); err != nil {
					t.Fatal(err)
				}
			}
			var mu sync.Mutex
			won, taken := 0, 0
			concurrently(10, func(i int) {
				_, err := repo.Change(ctx, race, claimBy(domain.Agent{ID: fmt.Sprintf("r%d-%d", race.X, i)}))
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					won++
				} else if pe, ok := problem.As(err); ok && pe.Kind == problem.KindConflict {
					taken++
				} else {
					t.Errorf("racer %d: %v", i, err)
				}
			})
			if won != 1 || taken != 9 {
				t.Fatalf("%s: %d won, %d refused; want 1 and 9", race.PlotID(), won, taken)
			}
		}
	})
	t.Run("listings", func(t *testing.T) {
		list, err := repo.ListClaimed(ctx, nil, 10)
		if err != nil || len(list) != 2 || list[0].ID != cell.PlotID() || list[1].ID != "plot_x7_y7" {
			t.Fatalf("claimed plots by x then y: %+v %v", list, err)
		}
		if after, err := repo.ListClaimed(ctx, &cell, 10); err != nil || len(after) != 1 {
			t.Fatalf("after %v: %+v %v", cell, after, err)
		}
		if n, err := repo.CountClaimed(ctx); err != nil || n != 2 {
			t.Fatalf("count: %d %v", n, err)
		}
		// (7, 7) is claimed too: the nearest free cells to it skip it
		near, err := repo.NearestFree(ctx, domain.Coordinates{X: 7, Y: 7}, 2)
		if err != nil || fmt.Sprint(near) != fmt.Sprint([]domain.Coordinates{{X: 6, Y: 7}, {X: 7, Y: 6}}) {
			t.Fatalf("nearest free to (7, 7): %v %v", near, err)
		}
		live, err := repo.Tenancies(ctx)
		if err != nil || len(live) != 2 || !live[list[0].Tenancy] || !live[list[1].Tenancy] {
			t.Fatalf("live tenancies: %v %v", live, err)
		}
	})
}

// Another replica claims the released cell between this one's read and its
// write: on a shared database the version guard catches it, the claim is
// decided again on the replica's result and refused, and the cell holds
// the replica's claim alone.
func TestPlotsVersionClashOnASharedDatabase(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	s := newPlots(t, kit.SharedDB())
	replica := newPlots(t, kit.SharedDB())
	cell := domain.Coordinates{X: 1, Y: 2}
	if _, err := s.Change(ctx, cell, claimBy(domain.Agent{ID: "first"})); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Change(ctx, cell, release); err != nil {
		t.Fatal(err)
	}
	interleaved := false
	s.docs.BeforeWrite = func(ctx context.Context, id string) {
		if !interleaved {
			interleaved = true
			if _, err := replica.Change(ctx, cell, claimBy(domain.Agent{ID: "replica"})); err != nil {
				t.Error(err)
			}
		}
	}
	runs := 0
	_, err := s.Change(ctx, cell, func(p *domain.Plot) ([]domain.Event, error) {
		runs++
		return claimBy(domain.Agent{ID: "mine"})(p)
	})
	wantKind(t, err, problem.KindConflict, "the claim decided again on the replica's")
	if runs != 2 {
		t.Fatalf("the claim ran %d times, want 2 (once on the free cell, once on the replica's claim)", runs)
	}
	p, err := s.Get(ctx, cell.PlotID())
	if err != nil || p.Owner != "replica" || p.Version != 3 {
		t.Fatalf("the replica's claim stands alone: %+v %v", p, err)
	}
	if n := len(outboxOf(t, s.OutboxCollection(), cell.PlotID())); n != 3 {
		t.Fatalf("claimed, released, the replica's claim: %d events", n)
	}
}
