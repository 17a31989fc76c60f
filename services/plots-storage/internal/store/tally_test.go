package store

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/plots-storage/internal/app"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// TestGardenTally: a tally started on a fresh database holds the garden's
// count; each move, racing ones too, moves it once and is dated after
// every earlier move and after the latest date the garden recorded. An
// adapter opened on the stored data (a restart) and started on the garden
// as stored goes on from the same count, dated after the last move. The
// MongoDB adapter counts the garden only while no replica did; the mirrored
// one keeps the tally in memory and counts it at every start.
func TestGardenTally(t *testing.T) {
	testkit.EachAdapter(t, newMongoUsage, newMirroredUsage, func(t *testing.T, kit *testkit.Kit, open func() app.Usage) {
		ctx := kit.Ctx()
		now := time.Date(2026, 11, 22, 9, 15, 3, 127e6, time.UTC)
		latest := now.Add(-time.Hour)
		usage := open()
		_, mirrored := usage.(*MirroredUsage)
		counted := 0
		counting := func(files int64, latest time.Time) func(context.Context) (int64, time.Time, error) {
			return func(context.Context) (int64, time.Time, error) { counted++; return files, latest, nil }
		}
		if err := usage.StartTally(ctx, now, counting(3, latest)); err != nil || counted != 1 {
			t.Fatalf("start on a fresh database: %v, counted %d times, want once", err, counted)
		}
		last := latest
		move := func(u app.Usage, files, want int64) {
			t.Helper()
			n, at, err := u.MoveTally(ctx, files, now)
			if err != nil || n != want || !at.After(last) || at.Before(clock.Stored(now)) {
				t.Fatalf("move by %d: %d at %v (%v), want %d dated after %v and no earlier than %v", files, n, at, err, want, last, now)
			}
			last = at
		}
		move(usage, 2, 5)
		move(usage, -1, 4)
		type moved struct {
			n   int64
			at  time.Time
			err error
		}
		var mu sync.Mutex
		var racing []moved
		concurrently(20, func(int) {
			n, at, err := usage.MoveTally(ctx, 1, now)
			mu.Lock()
			defer mu.Unlock()
			racing = append(racing, moved{n, at, err})
		})
		counts, dates := map[int64]bool{}, map[time.Time]bool{}
		first := last
		for _, m := range racing {
			if m.err != nil || counts[m.n] || dates[m.at] || !m.at.After(first) {
				t.Fatalf("racing moves answered %+v: each its own count and date, after %v", racing, first)
			}
			counts[m.n], dates[m.at] = true, true
			if m.at.After(last) {
				last = m.at
			}
		}
		for n := int64(5); n <= 24; n++ {
			if !counts[n] {
				t.Fatalf("racing moves answered %+v, want each of the counts 5..24 once", racing)
			}
		}

		restarted := open()
		if err := restarted.StartTally(ctx, now, counting(24, last)); err != nil {
			t.Fatal(err)
		}
		if want := 1 + map[bool]int{true: 1}[mirrored]; counted != want {
			t.Fatalf("the garden was counted %d times after a restart, want %d", counted, want)
		}
		move(restarted, 1, 25)
	})
}

// TestHoldsOutlivingTheirWriters: the mirrored adapter, its database's only
// writer, knows the holds its sweep at start found (taken by a process that
// is gone) to have outlived their writers, and none it took since; the
// MongoDB adapter knows none: another replica may still land them.
func TestHoldsOutlivingTheirWriters(t *testing.T) {
	testkit.EachAdapter(t, newMongoUsage, newMirroredUsage, func(t *testing.T, kit *testkit.Kit, open func() app.Usage) {
		ctx := kit.Ctx()
		reserve := func(u app.Usage, tenancy string, h domain.Hold) {
			t.Helper()
			if _, err := u.Account(ctx, tenancy, func(a *domain.Account) error { return a.Reserve(h) }); err != nil {
				t.Fatal(err)
			}
		}
		before := domain.Hold{ID: "h_before", Path: "/a", Change: domain.Change{Bytes: 1, Files: 1}}
		reserve(open(), "t1", before)
		restarted := open()
		_, mirrored := restarted.(*MirroredUsage)
		if restarted.Outlived(before) {
			t.Fatal("a hold is known outlived before the sweep at start found it")
		}
		if held, err := restarted.Holding(ctx); err != nil || fmt.Sprint(held) != "[t1]" {
			t.Fatalf("the sweep at start: %v %v", held, err)
		}
		after := domain.Hold{ID: "h_after", Path: "/b", Change: domain.Change{Bytes: 1, Files: 1}}
		reserve(restarted, "t1", after)
		reserve(restarted, "t2", domain.Hold{ID: "h_other", Path: "/c", Change: domain.Change{Bytes: 1, Files: 1}})
		if held, err := restarted.Holding(ctx); err != nil || fmt.Sprint(held) != "[t1 t2]" {
			t.Fatalf("a later sweep: %v %v", held, err)
		}
		if got := restarted.Outlived(before); got != mirrored {
			t.Fatalf("the hold found at start: outlived %v, want %v", got, mirrored)
		}
		for _, h := range []domain.Hold{after, {ID: "h_other"}} {
			if restarted.Outlived(h) {
				t.Fatalf("%s, taken after the sweep at start, is known outlived", h.ID)
			}
		}
	})
}
