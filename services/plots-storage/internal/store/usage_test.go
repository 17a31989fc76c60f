package store

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/plots-storage/internal/app"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// The holds of a tenancy change with its counters, in one write: racing
// writers never let them disagree, a settled hold is gone from the
// document, and Holding finds the tenancies that still record some.
func TestUsageHolds(t *testing.T) {
	testkit.EachAdapter(t, newMongoUsage, newMirroredUsage, func(t *testing.T, kit *testkit.Kit, open func() app.Usage) {
		testUsageHolds(t, kit.Ctx(), open())
	})
}

func testUsageHolds(t *testing.T, ctx context.Context, repo app.Usage) {
	until := time.Date(2026, 11, 22, 9, 16, 3, 127e6, time.UTC)
	hold := func(i int) domain.Hold {
		return domain.Hold{ID: fmt.Sprintf("h%02d", i), PlotID: "plot_1_1", Path: fmt.Sprintf("/f%d", i),
			Change: domain.Change{Bytes: domain.MiB, Files: 1}, Until: until}
	}
	concurrently(14, func(i int) {
		_, _ = repo.Account(ctx, "t1", func(a *domain.Account) error { return a.Reserve(hold(i)) })
	})
	if _, err := repo.Account(ctx, "t2", func(a *domain.Account) error { return a.Reserve(hold(99)) }); err != nil {
		t.Fatal(err)
	}
	acc, err := repo.Account(ctx, "t1", func(*domain.Account) error { return nil })
	quota := int64(domain.PlotQuotaBytes / domain.MiB)
	if err != nil || acc.Usage != (domain.Usage{Bytes: domain.PlotQuotaBytes, Files: quota}) || len(acc.Holds) != int(quota) {
		t.Fatalf("as many holds as the quota takes, each counted once: %+v %v", acc, err)
	}
	if h := acc.Holds[0]; h.PlotID != "plot_1_1" || h.Change != (domain.Change{Bytes: domain.MiB, Files: 1}) || !h.Until.Equal(until) {
		t.Fatalf("a hold reads back as it was taken: %+v", h)
	}
	held, err := repo.Holding(ctx)
	if slices.Sort(held); err != nil || fmt.Sprint(held) != "[t1 t2]" {
		t.Fatalf("tenancies holding: %v %v", held, err)
	}
	ids := make([]string, len(acc.Holds))
	for i, h := range acc.Holds {
		ids[i] = h.ID
	}
	concurrently(len(ids), func(i int) {
		_, err := repo.Account(ctx, "t1", func(a *domain.Account) error {
			if i%2 == 0 {
				a.Confirm(ids[i])
			} else {
				a.Release(ids[i])
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		}
	})
	if u, err := repo.Current(ctx, "t1"); err != nil || u != (domain.Usage{Bytes: quota / 2 * domain.MiB, Files: quota / 2}) {
		t.Fatalf("half confirmed, half given back: %+v %v", u, err)
	}
	if held, err := repo.Holding(ctx); err != nil || fmt.Sprint(held) != "[t2]" {
		t.Fatalf("a tenancy whose holds are all settled records none: %v %v", held, err)
	}
}

// Another replica settles a hold between this one's read and its write: the
// version guard makes this one decide again, so both changes land.
func TestUsageHoldsOnASharedDatabase(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	s := NewUsage(kit.SharedDB())
	replica := NewUsage(kit.SharedDB())
	first := domain.Hold{ID: "first", Path: "/a", Change: domain.Change{Bytes: 3, Files: 1}}
	if _, err := s.Account(ctx, "t", func(a *domain.Account) error { return a.Reserve(first) }); err != nil {
		t.Fatal(err)
	}
	once := false
	s.docs.BeforeWrite = func(ctx context.Context, _ string) {
		if !once {
			once = true
			if _, err := replica.Account(ctx, "t", func(a *domain.Account) error { a.Release("first"); return nil }); err != nil {
				t.Error(err)
			}
		}
	}
	second := domain.Hold{ID: "second", Path: "/b", Change: domain.Change{Bytes: 5, Files: 1}}
	acc, err := s.Account(ctx, "t", func(a *domain.Account) error { return a.Reserve(second) })
	if err != nil || acc.Usage != (domain.Usage{Bytes: 5, Files: 1}) || len(acc.Holds) != 1 || acc.Holds[0].ID != "second" {
		t.Fatalf("the replica's release and this hold both land: %+v %v", acc, err)
	}
}
