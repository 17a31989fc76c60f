package slots_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/ratelimit/slots"
	"sharedworld.dev/pkg/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func replica(t *testing.T, kit *testkit.Kit) *slots.Counter {
	t.Helper()
	c, err := slots.New(kit.Ctx(), mongox.NewDB(kit.DB.Database, kit.DB.Mode()), kit.Logger)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Two replicas racing on one key take exactly the limit between them.
func TestReplicasShareTheBudget(t *testing.T) {
	kit := testkit.New(t)
	a, b := replica(t, kit), replica(t, kit)
	const limit = 10
	expires := time.Now().Add(time.Minute)
	var taken atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func(c *slots.Counter) {
			defer wg.Done()
			slot, err := c.Take(kit.Ctx(), "writes|ada", 7, limit, expires)
			if err != nil {
				t.Error(err)
			}
			if slot != "" {
				taken.Add(1)
			}
		}([]*slots.Counter{a, b}[i%2])
	}
	wg.Wait()
	if taken.Load() != limit {
		t.Fatalf("two replicas took %d slots of a budget of %d", taken.Load(), limit)
	}
	// A restarted replica knows nothing in memory and still refuses.
	if slot, _ := replica(t, kit).Take(kit.Ctx(), "writes|ada", 7, limit, expires); slot != "" {
		t.Fatal("a new process must see the spent budget")
	}
	// Another window and another key start afresh.
	for _, k := range []struct {
		key    string
		window int64
	}{{"writes|ada", 8}, {"writes|bob", 7}} {
		if slot, err := a.Take(kit.Ctx(), k.key, k.window, limit, expires); slot == "" || err != nil {
			t.Fatalf("%v: %q %v", k, slot, err)
		}
	}
}

// A replica whose hint fell behind the other's takes catches up and the
// total stays the limit.
func TestReplicaCatchesUpWithTheOther(t *testing.T) {
	kit := testkit.New(t)
	a, b := replica(t, kit), replica(t, kit)
	expires := time.Now().Add(time.Minute)
	take := func(c *slots.Counter) bool {
		slot, err := c.Take(kit.Ctx(), "k", 1, 5, expires)
		if err != nil {
			t.Fatal(err)
		}
		return slot != ""
	}
	if !take(a) || !take(b) || !take(b) || !take(b) { // a's hint is 1, the window holds 4
		t.Fatal("the first four takes")
	}
	if !take(a) {
		t.Fatal("a must find the fifth slot past b's")
	}
	for i := 0; i < 3; i++ {
		if take(a) || take(b) {
			t.Fatal("a slot taken beyond the budget")
		}
	}
}

// A slot given back (the request was refused after it was counted) is
// free again: the budget counts accepted requests only.
func TestGivenSlotIsFreeAgain(t *testing.T) {
	kit := testkit.New(t)
	a := replica(t, kit)
	expires := time.Now().Add(time.Minute)
	var last string
	for i := 0; i < 3; i++ {
		slot, err := a.Take(kit.Ctx(), "k", 1, 3, expires)
		if slot == "" || err != nil {
			t.Fatalf("take %d: %q %v", i, slot, err)
		}
		if i == 1 {
			last = slot
		}
	}
	if err := a.Give(kit.Ctx(), "k", 1, last); err != nil {
		t.Fatal(err)
	}
	if slot, err := a.Take(kit.Ctx(), "k", 1, 3, expires); slot != last || err != nil {
		t.Fatalf("the given-back slot %q must be taken again, got %q %v", last, slot, err)
	}
	if slot, _ := a.Take(kit.Ctx(), "k", 1, 3, expires); slot != "" {
		t.Fatal("a slot taken beyond the budget")
	}
}
