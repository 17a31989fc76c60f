package bulletin_test

import (
	"slices"
	"testing"
	"time"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/bulletin"
)

// restarted is deps as a process restarted on the same database sees them:
// a new handle, whose in-memory copies are loaded from the store again.
func restarted(deps platform.Deps) platform.Deps {
	deps.DB = mongox.NewDB(deps.DB.Database, deps.DB.Mode())
	return deps
}

// runToEnd publishes evs and runs a bulletin on deps until it has applied
// them all (applied means stored).
func runToEnd(t *testing.T, kit *testkit.Kit, deps platform.Deps, evs []events.Event) *bulletin.Service {
	t.Helper()
	svc, err := bulletin.New(kit.Ctx(), deps, bulletin.Options{})
	if err != nil {
		t.Fatal(err)
	}
	kit.Publish(evs...)
	kit.Run(svc)
	testkit.Eventually(t, time.Minute, "every event applied", func() bool { return svc.Handled() >= int64(len(evs)) })
	return svc
}

// storedDocument is the bulletin a bulletin started on deps' database
// renders from what is stored.
func storedDocument(t *testing.T, kit *testkit.Kit, deps platform.Deps) string {
	t.Helper()
	svc, err := bulletin.New(kit.Ctx(), restarted(deps), bulletin.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return string(svc.Board().Current().JSON)
}

// A batch with duplicates, interrupted twice while being stored (once
// after part of its records, once after all records and part of its feed
// entries) and then delivered again whole, ends with every effect exactly
// once: the same bulletin as a clean run of the distinct events, and every
// feed entry stored once, in an increasing stream order.
func TestBatchWithDuplicatesSurvivesCrashesMidBatch(t *testing.T) {
	distinct := mixedEvents(600)
	batch := slices.Concat(distinct, distinct[100:300], distinct[:50])

	clean := testkit.New(t)
	cleanDeps := clean.Deps(nil)
	runToEnd(t, clean, cleanDeps, distinct)
	want := storedDocument(t, clean, cleanDeps)
	wantIDs, _ := bulletin.StoredFeed(t, cleanDeps)

	kit := testkit.New(t)
	deps := kit.Deps(nil)
	bulletin.CrashWhileStoring(t, restarted(deps), batch, 150, -1)
	afterFirst, _ := bulletin.StoredFeed(t, restarted(deps))
	if len(afterFirst) != 0 {
		t.Fatalf("the first crash came before any feed entry was stored, yet %d are", len(afterFirst))
	}
	bulletin.CrashWhileStoring(t, restarted(deps), batch, -1, 200)
	afterSecond, _ := bulletin.StoredFeed(t, restarted(deps))
	if len(afterSecond) != 200 {
		t.Fatalf("the second crash came after 200 feed entries, yet %d are stored", len(afterSecond))
	}
	svc := runToEnd(t, kit, restarted(deps), batch)

	if got := storedDocument(t, kit, deps); got != want {
		t.Fatalf("after the crashes the stored bulletin differs from a clean run:\n got %s\nwant %s", got, want)
	}
	testkit.Eventually(t, 10*time.Second, "the served bulletin is the clean run's", func() bool {
		return string(svc.Board().Current().JSON) == want
	})
	ids, seqs := bulletin.StoredFeed(t, restarted(deps))
	if len(ids) != len(wantIDs) {
		t.Fatalf("%d feed entries stored, want %d (one per event with a feed line)", len(ids), len(wantIDs))
	}
	seen := map[string]bool{}
	for i, id := range ids {
		if seen[id] {
			t.Fatalf("feed entry of %s stored twice", id)
		}
		seen[id] = true
		if i > 0 && seqs[i] <= seqs[i-1] {
			t.Fatalf("stream order not increasing at %d: %d after %d", i, seqs[i], seqs[i-1])
		}
	}
	for _, id := range wantIDs {
		if !seen[id] {
			t.Fatalf("feed entry of %s lost", id)
		}
	}
}
