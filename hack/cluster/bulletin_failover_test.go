//go:build cluster

package cluster

import (
	"context"
	"fmt"
	"math/rand"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// envInt is a size of the run from the environment (`make
// cluster-failover` sets the full ones), or def.
func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}

// The bulletin's aggregator fails over and a reader dies under load, and
// no live follower notices but by a reconnect: FOLLOWERS followers (20 in
// the full run) each move between the readers at random, resuming with
// Last-Event-ID on another reader, while WRITES announcements (5,000)
// are posted; the leading aggregator is killed (SIGKILL) at 30% and again
// at 70% of the writes, one reader at 50%. Every follower sees every item
// of the stored feed exactly once, in its order, and the bulletin's
// population and claimed plots equal what identity and plots-storage
// store of the citizens registered meanwhile. Each failover's time (the
// kill to another replica leading) is logged.
func TestBulletinFailoverUnderLoad(t *testing.T) {
	followers := envInt(t, "FOLLOWERS", 6)
	writes := envInt(t, "WRITES", 600)
	replicas := envInt(t, "REPLICAS", 2)
	c, logPath, err := startLogged(t, replicas)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	marks, start := postMarks(ctx, t, &writer{front: c.URL, token: clusterToken}, c.URL)

	readers := readyReaders(c)
	fs := make([]*follower, followers)
	var following sync.WaitGroup
	for i := range fs {
		fs[i] = &follower{readers: readers, rng: rand.New(rand.NewSource(int64(i))), last: start}
		following.Add(1)
		go func() { defer following.Done(); fs[i].run(ctx) }()
	}

	var posted atomic.Int64
	ws := make([]*writer, 8)
	var writing sync.WaitGroup
	for i := range ws {
		ws[i] = &writer{front: c.URL, token: clusterToken}
		writing.Add(1)
		go func() {
			defer writing.Done()
			for n := i; n < writes; n += len(ws) {
				if _, err := ws[i].post(ctx, fmt.Sprintf("run %05d", n)); err != nil {
					t.Error(err)
					return
				}
				posted.Add(1)
			}
		}()
	}

	// citizens with plots, one per 100 writes, for the counters' check
	reg := &registrar{front: c.URL}
	citizens := max(3, writes/100)
	writing.Add(1)
	go func() {
		defer writing.Done()
		if err := reg.run(ctx, "failover", citizens); err != nil {
			t.Error(err)
		}
	}()

	var failovers []time.Duration
	aggs := func() []*Replica { rs, _ := c.Replicas("bulletin-aggregator"); return rs }
	waitFor := func(share float64) {
		for posted.Load() < int64(share*float64(writes)) && ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond) // watching the writers' progress
		}
	}
	killLeader := func() {
		rs := aggs()
		i := leaderOf(rs)
		if i < 0 {
			t.Fatal("no aggregator leads")
		}
		restarts := rs[i].Restarts()
		killed := time.Now()
		rs[i].Kill()
		for {
			// the killed replica's next process may win the lease too
			if j := leaderOf(aggs()); j >= 0 && (j != i || rs[i].Restarts() > restarts) {
				failovers = append(failovers, time.Since(killed))
				return
			}
			if time.Since(killed) > 30*time.Second {
				dumpElection(t, logPath)
				t.Fatal("no standby took over within 30 s")
			}
			time.Sleep(100 * time.Millisecond) // polling, with the deadline above
		}
	}
	waitFor(0.3)
	killLeader()
	waitFor(0.5)
	if err := c.Kill("bulletin", 1%replicas); err != nil {
		t.Fatal(err)
	}
	waitFor(0.7)
	killLeader()
	writing.Wait()

	// A post answered 503 may still have been stored (and then posted
	// again), so the feed is read again until it holds at least every
	// post, the followers hold all of it and it has stopped growing. The
	// aggregator may be minutes behind the writers on a loaded machine
	// (and stands still while the lease changes hands), so a pause in its
	// growth alone does not end the wait; the deadline tells lag from loss.
	// Reading the whole feed again costs the database a scan per page,
	// so the reads are 5 s apart.
	want := awaitStoredFeed(ctx, t, c.URL, marks, fs, 5*time.Minute, 5*time.Second, func(n int) bool { return n >= writes })
	if len(want) < writes {
		dumpElection(t, logPath)
		t.Fatalf("the stored feed holds %d items after the marks, want at least the %d posted", len(want), writes)
	}
	checkCounters(t, c.URL, reg.done)
	cancel()
	following.Wait()
	sessions, refused := 0, 0
	for i, f := range fs {
		sessions, refused = sessions+f.sessions, refused+f.refused
		checkFollower(t, i, f, want)
		if fmt.Sprint(f.ids) != fmt.Sprint(fs[0].ids) {
			t.Errorf("follower %d saw the items in another order than follower 0", i)
		}
	}
	retries := map[string]int{}
	for _, w := range ws {
		for why, n := range w.retries {
			retries[why] += n
		}
	}
	t.Logf("%d replicas each; %d followers, %d sessions (%d refused: a reader gone), %d items each; %d writes (retried: %v); failovers %v",
		replicas, followers, sessions, refused, len(want), writes, retries, failovers)
	for _, d := range failovers {
		if d > 15*time.Second {
			t.Errorf("a failover took %v, more than 15 s", d)
		}
	}
}

// postMarks posts two announcements, each once the one before is in the
// feed, and returns their ids and the cursor of the second: the point
// every follower starts after. Waiting for the first keeps the two in one
// order in the stream and on the pages (two posts in flight at once may
// reach the stream in either order, and the pages order by time), so no
// mark comes after the start.
func postMarks(ctx context.Context, t *testing.T, w *writer, base string) (marks map[string]bool, start string) {
	t.Helper()
	marks = map[string]bool{}
	for _, title := range []string{"mark 1", "mark 2"} {
		id, err := w.post(ctx, title)
		if err != nil {
			t.Fatal(err)
		}
		marks[id] = true
		deadline := time.Now().Add(30 * time.Second)
		for {
			newest, next := newestItem(base)
			if newest == id {
				start = next
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s never reached the feed", title)
			}
			time.Sleep(50 * time.Millisecond) // polling, with the deadline above
		}
	}
	if start == "" {
		t.Fatal("a page of the newest of two items has no next cursor")
	}
	return marks, start
}

// newestItem is the id of the newest feed item and its cursor (a page of
// one item's next; empty while the feed holds only one item).
func newestItem(base string) (id, cursor string) {
	resp, err := http.Get(base + "/api/world/events?limit=1")
	if err != nil {
		return "", ""
	}
	defer resp.Body.Close()
	var page struct {
		Events []struct {
			ID string `json:"id"`
		} `json:"events"`
		Pagination struct {
			Next *string `json:"next"`
		} `json:"pagination"`
	}
	if err := jsonDecode(resp, &page); err != nil || len(page.Events) == 0 {
		return "", ""
	}
	if page.Pagination.Next != nil {
		cursor = *page.Pagination.Next
	}
	return page.Events[0].ID, cursor
}

// dumpElection logs what the aggregator replicas said about their lease.
func dumpElection(t *testing.T, path string) {
	t.Helper()
	b, _ := os.ReadFile(path)
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, "aggregator") && (strings.Contains(line, "lease") || strings.Contains(line, "lead") ||
			strings.Contains(line, "afresh") || strings.Contains(line, "ERROR")) {
			t.Log(line)
		}
	}
}

// checkFollower checks that f saw every item of want once, in stream order.
func checkFollower(t *testing.T, i int, f *follower, want map[string]bool) {
	t.Helper()
	seen := map[string]bool{}
	for j, id := range f.ids {
		switch {
		case seen[id]:
			t.Errorf("follower %d: item %d (%s) repeated", i, j, id)
			return
		case !want[id]:
			t.Errorf("follower %d: item %d (%s) is not in the stored feed", i, j, id)
			return
		case j > 0 && f.seqs[j] <= f.seqs[j-1]:
			t.Errorf("follower %d: item %d (%s) out of order: seq %d after %d", i, j, id, f.seqs[j], f.seqs[j-1])
			return
		}
		seen[id] = true
	}
	if len(seen) != len(want) {
		t.Errorf("follower %d saw %d of the %d stored items", i, len(seen), len(want))
	}
}

// awaitStoredFeed reads the stored feed until it holds enough (given the
// count of its items after the marks), stopped growing between two reads,
// and every follower holds that many items; or until wait has passed. It
// returns the items after the marks as last read. A late item's relay and
// apply take a moment, so reads are pause apart.
func awaitStoredFeed(ctx context.Context, t *testing.T, base string, marks map[string]bool, fs []*follower,
	wait, pause time.Duration, enough func(n int) bool) map[string]bool {
	t.Helper()
	var want map[string]bool
	deadline := time.Now().Add(wait)
	for {
		stored, err := storedFeed(ctx, base)
		if err != nil {
			t.Fatal(err)
		}
		if (len(stored) == len(want)+len(marks) && enough(len(want))) || time.Now().After(deadline) {
			return want
		}
		if len(stored) != len(want)+len(marks) {
			t.Logf("the stored feed holds %d items", len(stored))
		}
		want = map[string]bool{}
		for _, id := range stored {
			if !marks[id] {
				want[id] = true
			}
		}
		for _, f := range fs {
			for f.have.Load() < int64(len(want)) && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond) // polling, with the deadline above
			}
		}
		time.Sleep(pause)
	}
}
