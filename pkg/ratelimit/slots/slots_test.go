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

// eachMode runs a contract on the counter as replicas sharing the database
// build it and as the only writer does (the embedded default); open is a
// new process's counter on the same slots, opened once the counters before
// it stored what they queued (as a process does when it stops).
// replicas is how many processes may count at once: two where replicas
// share the database, one where this process is the only writer.
func eachMode(t *testing.T, contract func(t *testing.T, kit *testkit.Kit, open func() *slots.Counter, replicas int)) {
	for _, mode := range []struct {
		name     string
		view     func(*testkit.Kit) *mongox.DB
		replicas int
	}{{"shared", (*testkit.Kit).SharedDB, 2}, {"exclusive", (*testkit.Kit).ExclusiveDB, 1}} {
		t.Run(mode.name, func(t *testing.T) {
			kit := testkit.New(t)
			var opened []*slots.Counter
			contract(t, kit, func() *slots.Counter {
				t.Helper()
				for _, c := range opened {
					if err := c.Drain(kit.Ctx()); err != nil {
						t.Fatal(err)
					}
				}
				c, err := slots.New(kit.Ctx(), mode.view(kit), kit.Logger)
				if err != nil {
					t.Fatal(err)
				}
				opened = append(opened, c)
				return c
			}, mode.replicas)
		})
	}
}

// take counts one request of key at now under limit per minute.
func take(t *testing.T, kit *testkit.Kit, c *slots.Counter, key string, now time.Time, limit int) (string, time.Duration) {
	t.Helper()
	slot, wait, err := c.Take(kit.Ctx(), key, now, limit, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return slot, wait
}

// The budget is a sliding minute, and a new process (a restart, or
// another replica) sees what was counted before it.
func TestSlidingWindowOutlivesTheProcess(t *testing.T) {
	eachMode(t, func(t *testing.T, kit *testkit.Kit, open func() *slots.Counter, _ int) {
		a := open()
		t0 := time.Now().Truncate(time.Second)
		for i, at := range []time.Duration{0, 20 * time.Second, 40 * time.Second} {
			if slot, _ := take(t, kit, a, "writes|ada", t0.Add(at), 3); slot == "" {
				t.Fatalf("request %d refused", i+1)
			}
		}
		b := open()
		for _, c := range []*slots.Counter{a, b} {
			if slot, wait := take(t, kit, c, "writes|ada", t0.Add(50*time.Second), 3); slot != "" || wait != 10*time.Second {
				t.Fatalf("the fourth in the minute: slot %q wait %v, want refused for 10s", slot, wait)
			}
		}
		// The first left the window: one more fits, and no second one.
		if slot, _ := take(t, kit, b, "writes|ada", t0.Add(61*time.Second), 3); slot == "" {
			t.Fatal("a request once the oldest left the window must be accepted")
		}
		if slot, wait := take(t, kit, open(), "writes|ada", t0.Add(62*time.Second), 3); slot != "" || wait != 18*time.Second {
			t.Fatalf("the window is full again until 20s+60s: slot %q wait %v", slot, wait)
		}
		if slot, _ := take(t, kit, a, "writes|bob", t0.Add(62*time.Second), 3); slot == "" {
			t.Fatal("another key has its own budget")
		}
	})
}

// Concurrent requests (on two replicas where they share the database)
// never pass the limit between them; those refused counted nothing, so
// taking one by one afterwards fills the budget exactly.
func TestConcurrentRequestsNeverPassTheLimit(t *testing.T) {
	eachMode(t, func(t *testing.T, kit *testkit.Kit, open func() *slots.Counter, replicas int) {
		counters := make([]*slots.Counter, replicas)
		for i := range counters {
			counters[i] = open()
		}
		const limit = 10
		now := time.Now()
		var taken atomic.Int64
		var wg sync.WaitGroup
		for i := 0; i < 40; i++ {
			wg.Add(1)
			go func(c *slots.Counter) {
				defer wg.Done()
				slot, _, err := c.Take(kit.Ctx(), "writes|ada", now, limit, time.Minute)
				if err != nil {
					t.Error(err)
				}
				if slot != "" {
					taken.Add(1)
				}
			}(counters[i%replicas])
		}
		wg.Wait()
		if n := taken.Load(); n < 1 || n > limit {
			t.Fatalf("%d concurrent requests accepted under a limit of %d", n, limit)
		}
		for i := 0; ; i++ {
			slot, _ := take(t, kit, counters[i%replicas], "writes|ada", now, limit)
			if slot == "" {
				break
			}
			taken.Add(1)
		}
		if n := taken.Load(); n != limit {
			t.Fatalf("the budget filled to %d, want %d", n, limit)
		}
	})
}

// A slot given back (the request was refused after it was counted) counts
// no more, in this process and in the next.
func TestGivenSlotCountsNoMore(t *testing.T) {
	eachMode(t, func(t *testing.T, kit *testkit.Kit, open func() *slots.Counter, _ int) {
		a := open()
		now := time.Now()
		var given string
		for i := 0; i < 3; i++ {
			slot, _ := take(t, kit, a, "k", now, 3)
			if slot == "" {
				t.Fatalf("take %d refused", i+1)
			}
			given = slot
		}
		// Given back at once: on the exclusive database the slot's insert
		// may still be queued, and must not land after its delete.
		if err := a.Give(kit.Ctx(), "k", given); err != nil {
			t.Fatal(err)
		}
		b := open()
		if slot, _ := take(t, kit, b, "k", now.Add(time.Second), 3); slot == "" {
			t.Fatal("the given-back request must leave room for one more, in the next process too")
		}
		for _, c := range []*slots.Counter{b, open()} {
			if slot, _ := take(t, kit, c, "k", now.Add(2*time.Second), 3); slot != "" {
				t.Fatal("a request beyond the budget was counted")
			}
		}
	})
}
