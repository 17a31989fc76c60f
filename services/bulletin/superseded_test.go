package bulletin_test

import (
	"slices"
	"testing"
	"time"

	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/bulletin"
)

// TestALeaderThatMeetsAnotherWriterLoadsAfreshAndLosesNothing: a previous
// leader, still writing after its lease ran out, takes the feed seqs the
// new leader's memory was about to use. The new leader's write meets them;
// it loads the store afresh and goes on after them, so every event reaches
// the stored feed once, under a seq of its own (retrying the taken seqs
// would stall it for good; planning on its stale memory would leave the
// events' items out).
func TestALeaderThatMeetsAnotherWriterLoadsAfreshAndLosesNothing(t *testing.T) {
	kit := testkit.New(t)
	leader := startReplica(t, kit, bulletin.RoleAggregator, "aggregator-a")
	leaderOf(t, leader)
	deps := kit.Deps(nil)
	deps.DB = kit.ReplicaDB()

	kit.Publish(gardenEvent(0))
	testkit.Eventually(t, 20*time.Second, "the first event is stored", func() bool {
		ids, _ := bulletin.StoredFeed(t, deps)
		return len(ids) == 1
	})
	_, seqs := bulletin.StoredFeed(t, deps)
	for i := range int64(3) {
		bulletin.WriteAsAnotherAggregator(t, deps, seqs[0]+1+i, "ev_zombie_"+string(rune('a'+i)), sec(100))
	}

	const more = 5
	for i := 1; i <= more; i++ {
		kit.Publish(gardenEvent(i))
	}
	var ids []string
	testkit.Eventually(t, 30*time.Second, "every event is stored", func() bool {
		ids, seqs = bulletin.StoredFeed(t, deps)
		return len(ids) == 1+3+more
	})
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("%s is stored twice: %v", id, ids)
		}
		seen[id] = true
	}
	if !slices.IsSorted(seqs) || len(slices.Compact(slices.Clone(seqs))) != len(seqs) {
		t.Fatalf("seqs are not unique and ordered: %v", seqs)
	}
	if !leader.svc.Leading() {
		t.Fatal("the leader stopped leading: a clash with a stale writer should only reload it")
	}
}
