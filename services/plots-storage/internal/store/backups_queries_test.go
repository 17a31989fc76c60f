package store

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// TestBackupQueries stores backups of several owners (same-millisecond
// ones, expiring and expired ones) through each adapter, deletes some, and
// checks each owner's list at several times and the slots taken against
// the backups as the test keeps them, on the adapter as written and on a
// second one opened on the stored backups (as a restarted process opens
// them); then purges.
func TestBackupQueries(t *testing.T) {
	testkit.EachAdapter(t, newMongoBackups, newMirroredBackups, testBackupQueries)
}

func testBackupQueries(t *testing.T, kit *testkit.Kit, open func() backupsAdapter) {
	ctx := kit.Ctx()
	written := ensured(t, open())
	base := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	owners := []string{"agent_b", "agent_a", "agent_c"}
	stored := map[string]domain.Backup{}
	slots := map[string]map[int]bool{} // each owner's taken slots: an insert takes the first free one
	slotOf := map[string]int{}
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
		stored[b.ID] = b
		if slots[b.Owner] == nil {
			slots[b.Owner] = map[int]bool{}
		}
		slotOf[b.ID] = len(slots[b.Owner]) // no slot was freed yet
		slots[b.Owner][slotOf[b.ID]] = true
	}
	for _, id := range []string{"bk_07", "bk_14"} {
		if err := written.Delete(ctx, id); err != nil {
			t.Fatal(err)
		}
		delete(slots[stored[id].Owner], slotOf[id])
		delete(stored, id)
	}
	// listed is what List must answer: owner's backups unexpired at now,
	// newest first, then by id, without content.
	listed := func(owner string, now time.Time) []domain.Backup {
		out := []domain.Backup{}
		for _, b := range stored {
			if b.Owner == owner && (b.ExpiresAt == nil || b.ExpiresAt.After(now)) {
				out = append(out, b)
			}
		}
		slices.SortFunc(out, func(a, b domain.Backup) int { return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(a.ID, b.ID)) })
		return out
	}
	for name, s := range map[string]backupsAdapter{"as written": written, "opened on the stored backups": ensured(t, open())} {
		for _, owner := range append(owners, "agent_none") {
			for _, at := range []time.Duration{0, 6 * time.Minute, 11 * time.Minute, time.Hour} {
				now := base.Add(at)
				got, err := s.List(ctx, owner, now)
				if want := listed(owner, now); err != nil || !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: %s at +%v:\n got %+v %v\nwant %+v", name, owner, at, got, err, want)
				}
			}
			got, err := s.usedSlots(ctx, owner)
			want := slots[owner]
			if want == nil {
				want = map[int]bool{}
			}
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: slots of %s: %v %v, want %v", name, owner, got, err, want)
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
		for id, b := range stored {
			if b.Owner == owner && b.ExpiresAt != nil && !b.ExpiresAt.After(later) {
				delete(stored, id)
			}
		}
		if got, err := written.List(ctx, owner, base); err != nil || !reflect.DeepEqual(got, listed(owner, base)) {
			t.Fatalf("after purging %d of %s: %+v %v, want %+v", n, owner, got, err, listed(owner, base))
		}
		purged += n
	}
	if purged != 1 {
		t.Fatalf("purged %d backups, want the 1 expired by then (bk_18)", purged)
	}
}
