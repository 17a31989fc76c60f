package store

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/pkg/seal"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/plots-storage/internal/app"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

func TestUsageRepository(t *testing.T) {
	testkit.EachAdapter(t, newMongoUsage, newMirroredUsage, func(t *testing.T, kit *testkit.Kit, open func() app.Usage) {
		testUsage(t, kit.Ctx(), open())
	})
}

func testUsage(t *testing.T, ctx context.Context, repo app.Usage) {
	if u, err := repo.Current(ctx, "t1"); err != nil || u != (domain.Usage{}) {
		t.Fatalf("a tenancy never counted uses nothing: %+v %v", u, err)
	}
	// Racing reservations of a megabyte each: exactly as many fit as the
	// quota holds, and the usage counts each once.
	var took, refused atomic.Int64
	concurrently(14, func(int) {
		_, err := repo.Change(ctx, "t1", func(u *domain.Usage) error { return u.Take(domain.Change{Bytes: domain.MiB, Files: 1}) })
		if pe, ok := problem.As(err); ok && pe.Kind == problem.KindTooLarge {
			refused.Add(1)
		} else if err != nil {
			t.Errorf("reserve: %v", err)
		} else {
			took.Add(1)
		}
	})
	quota := int64(domain.PlotQuotaBytes / domain.MiB)
	if took.Load() != quota || refused.Load() != 14-quota {
		t.Fatalf("%d reservations taken, %d refused; want %d and %d", took.Load(), refused.Load(), quota, 14-quota)
	}
	if u, err := repo.Current(ctx, "t1"); err != nil || u != (domain.Usage{Bytes: domain.PlotQuotaBytes, Files: quota}) {
		t.Fatalf("usage after the race: %+v %v", u, err)
	}
	if err := repo.DeleteTenancy(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	if u, err := repo.Current(ctx, "t1"); err != nil || u != (domain.Usage{}) {
		t.Fatalf("an ended tenancy's usage is gone: %+v %v", u, err)
	}
	if err := repo.DeleteTenancy(ctx, "t1"); err != nil {
		t.Fatalf("deleting it twice is no error: %v", err)
	}
}

func TestPermissionsRepository(t *testing.T) {
	kit := testkit.New(t)
	testPermissions(t, kit.Ctx(), NewPermissions(kit.DB))
}

func testPermissions(t *testing.T, ctx context.Context, repo app.Permissions) {
	defaults := domain.Permissions{AllowedAgents: []string{}, BannedAgents: []string{}}
	if p, err := repo.Get(ctx, "t1"); err != nil || fmt.Sprint(p) != fmt.Sprint(defaults) {
		t.Fatalf("defaults when never set: %+v %v", p, err)
	}
	set := domain.Permissions{PublicRead: true, AllowedAgents: []string{"a"}, BannedAgents: []string{"b"}}
	if err := repo.Put(ctx, "t1", set); err != nil {
		t.Fatal(err)
	}
	replaced := domain.Permissions{PublicWrite: true, GovernanceOverride: true}
	if err := repo.Put(ctx, "t1", replaced); err != nil {
		t.Fatal(err)
	}
	want := domain.Permissions{PublicWrite: true, GovernanceOverride: true, AllowedAgents: []string{}, BannedAgents: []string{}}
	if p, err := repo.Get(ctx, "t1"); err != nil || fmt.Sprint(p) != fmt.Sprint(want) {
		t.Fatalf("the last PUT stands whole: %+v %v", p, err)
	}
	if err := repo.DeleteTenancy(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	if p, err := repo.Get(ctx, "t1"); err != nil || fmt.Sprint(p) != fmt.Sprint(defaults) {
		t.Fatalf("an ended tenancy's permissions are gone: %+v %v", p, err)
	}
}

func TestBackupsRepository(t *testing.T) {
	testkit.EachAdapter(t, newMongoBackups, newMirroredBackups, func(t *testing.T, kit *testkit.Kit, open func() backupsAdapter) {
		testBackups(t, kit.Ctx(), ensured(t, open()))
	})
}

func testBackups(t *testing.T, ctx context.Context, repo app.Backups) {
	now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	sealed := seal.Sealed{KDF: seal.KDFArgon2id, Params: seal.Params{Time: 1, MemoryKiB: 64, Threads: 1},
		Salt: []byte("salt"), Nonce: []byte("nonce"), Ciphertext: []byte("secret")}
	soon := now.Add(time.Hour)
	backup := func(i int) domain.Backup {
		b := domain.Backup{ID: domain.NewBackupID(), Owner: "ada", Type: domain.BackupFull, SizeBytes: 6, CreatedAt: now.Add(time.Duration(i) * time.Second), Sealed: sealed}
		if i == 0 {
			b.ExpiresAt = &soon
		}
		return b
	}
	if err := repo.Insert(ctx, backup(0)); err != nil { // the one that expires
		t.Fatal(err)
	}
	// Racing backups: the slots admit exactly MaxBackupsPerCitizen.
	var stored, full atomic.Int64
	stored.Add(1)
	concurrently(domain.MaxBackupsPerCitizen+4, func(i int) {
		switch err := repo.Insert(ctx, backup(i+1)); {
		case errors.Is(err, domain.ErrBackupSlotsFull):
			full.Add(1)
		case err != nil:
			t.Errorf("backup %d: %v", i, err)
		default:
			stored.Add(1)
		}
	})
	if stored.Load() != domain.MaxBackupsPerCitizen || full.Load() != 5 {
		t.Fatalf("%d stored, %d refused; want %d and 5", stored.Load(), full.Load(), domain.MaxBackupsPerCitizen)
	}
	list, err := repo.List(ctx, "ada", now)
	if err != nil || len(list) != domain.MaxBackupsPerCitizen {
		t.Fatalf("list: %d backups, %v", len(list), err)
	}
	got, err := repo.Get(ctx, list[0].ID, "ada")
	if err != nil || fmt.Sprint(got.Sealed) != fmt.Sprint(sealed) || got.SizeBytes != 6 {
		t.Fatalf("get with content: %+v %v", got, err)
	}
	if _, err := repo.Get(ctx, list[0].ID, "bob"); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("another citizen's backup is not found: %v", err)
	}
	if err := repo.Delete(ctx, list[0].ID); err != nil {
		t.Fatal(err)
	}
	if err := repo.Delete(ctx, list[0].ID); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("deleted twice: %v", err)
	}
	if n, err := repo.PurgeExpired(ctx, "ada", soon); err != nil || n != 1 {
		t.Fatalf("purge: %d %v, want the one expired backup", n, err)
	}
	for range 2 {
		if err := repo.Insert(ctx, backup(99)); err != nil {
			t.Fatalf("a freed slot takes a new backup: %v", err)
		}
	}
	if err := repo.Insert(ctx, backup(99)); !errors.Is(err, domain.ErrBackupSlotsFull) {
		t.Fatalf("and then the slots are full again: %v", err)
	}
}
