package store

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// TestBackupQueriesAgreeWithTheQueryPath stores backups of several owners
// (same-millisecond ones, expiring and expired ones) through the store of
// the kit's mode, deletes some, and compares each owner's list at several
// times with the MongoDB query path (a store on a shared handle of the same
// database) and with a store that loads the copy afresh; then purges.
func TestBackupQueriesAgreeWithTheQueryPath(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	written := NewBackups(kit.DB)
	if err := written.EnsureIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	owners := []string{"agent_b", "agent_a", "agent_c"}
	for i := range 24 {
		b := domain.Backup{ID: fmt.Sprintf("bk_%02d", (i*7)%24), Owner: owners[i%3], Type: domain.BackupMemory, SizeBytes: int64(i),
			CreatedAt: base.Add(time.Duration(i/4) * time.Minute)}
		if i%5 == 1 {
			exp := base.Add(time.Duration(i) * time.Minute)
			b.ExpiresAt = &exp
		}
		if err := written.Insert(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{"bk_07", "bk_14"} {
		if err := written.Delete(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	query := NewBackups(mongox.NewDB(kit.DB.Database, mongox.Shared))
	reloaded := NewBackups(mongox.NewDB(kit.DB.Database, kit.DB.Mode()))
	for name, s := range map[string]*Backups{"as written": written, "loaded at start": reloaded} {
		for _, owner := range append(owners, "agent_none") {
			for _, at := range []time.Duration{0, 6 * time.Minute, 11 * time.Minute, time.Hour} {
				now := base.Add(at)
				got, gerr := s.List(ctx, owner, now)
				want, werr := query.List(ctx, owner, now)
				if gerr != nil || werr != nil || !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: %s at +%v:\n got %+v %v\nwant %+v %v", name, owner, at, got, gerr, want, werr)
				}
			}
			gs, gerr := s.usedSlots(ctx, owner)
			ws, werr := query.usedSlots(ctx, owner)
			if gerr != nil || werr != nil || !reflect.DeepEqual(gs, ws) {
				t.Fatalf("%s: slots of %s: %v %v, want %v %v", name, owner, gs, gerr, ws, werr)
			}
		}
	}
	later := base.Add(10 * time.Minute)
	var purged int64
	for _, owner := range owners {
		n, err := written.PurgeExpired(ctx, owner, later)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := written.List(ctx, owner, base)
		want, _ := query.List(ctx, owner, base)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("after purging %d of %s: %+v, want %+v", n, owner, got, want)
		}
		purged += n
	}
	if purged != 1 {
		t.Fatalf("purged %d backups, want the 1 expired by then (bk_18)", purged)
	}
}
