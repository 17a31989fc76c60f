package bulletin_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"net/http"
	"sync"
	"testing"
	"time"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/testkit"
	plotsv1 "sharedworld.dev/proto/plots/v1"
	"sharedworld.dev/services/bulletin"
)

// TestStreamResumeUnderLoad: 20 subscribers read the live feed while 5,000
// garden files are written, each dropping its connection at random moments and
// resuming with Last-Event-ID. Every subscriber sees every item exactly
// once, in the stream's order, the same order for all (CONTRACT §6).
func TestStreamResumeUnderLoad(t *testing.T) {
	const (
		subscribers = 20
		items       = 5000
		batch       = 50
	)
	w := newWorld(t, bulletin.Options{Heartbeat: 100 * time.Millisecond})
	base := w.serve(t)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	subs := make([]*resumingReader, subscribers)
	var wg sync.WaitGroup
	for i := range subs {
		// Each subscriber is connected before the first write, so each is
		// owed every item.
		s := &resumingReader{base: base, want: items, rng: rand.New(rand.NewSource(int64(i)))}
		if err := s.connect(ctx); err != nil {
			t.Fatal(err)
		}
		subs[i] = s
		wg.Add(1)
		go func() { defer wg.Done(); s.err = s.run(ctx) }()
	}

	for from := 0; from < items; from += batch {
		evs := make([]events.Event, 0, batch)
		for i := from; i < from+batch; i++ {
			evs = append(evs, gardenEvent(i))
		}
		w.kit.Publish(evs...)
	}
	w.waitHandledWithin(t, items, 40*time.Second)
	// Every item is stored and shown: a reader still short of all of them
	// after a while more has lost some.
	readersDone := make(chan struct{})
	go func() { wg.Wait(); close(readersDone) }()
	select {
	case <-readersDone:
	case <-time.After(15 * time.Second):
		cancel()
		<-readersDone
	}

	want := map[string]bool{}
	for i := range items {
		want[gardenPath(i)] = true
	}
	reconnects := 0
	for i, s := range subs {
		reconnects += s.sessions - 1
		if s.err != nil && !errors.Is(s.err, context.Canceled) {
			t.Fatalf("subscriber %d: %v (after %d items)", i, s.err, len(s.ids))
		}
		seen := map[string]bool{}
		for j, id := range s.ids {
			if !want[id] || seen[id] {
				t.Fatalf("subscriber %d: item %d is %s: unknown or repeated", i, j, id)
			}
			seen[id] = true
			if j > 0 && s.seqs[j] <= s.seqs[j-1] {
				t.Fatalf("subscriber %d: item %d (%s) is out of stream order: seq %d after %d", i, j, id, s.seqs[j], s.seqs[j-1])
			}
		}
		if len(seen) != items {
			var missing []string
			for i := range items {
				if id := gardenPath(i); !seen[id] && len(missing) < 5 {
					missing = append(missing, id)
				}
			}
			t.Fatalf("subscriber %d saw %d of %d items; missing %v among others", i, len(seen), items, missing)
		}
		if fmt.Sprint(s.ids) != fmt.Sprint(subs[0].ids) {
			t.Fatalf("subscriber %d saw the items in another order than subscriber 0", i)
		}
	}
	if reconnects < subscribers*5 {
		t.Fatalf("only %d reconnects: the test did not resume often", reconnects)
	}
	t.Logf("%d subscribers, %d items each, %d reconnects", subscribers, items, reconnects)
}

// gardenEvent is the i-th garden file planted: one feed item each, all on
// the one garden record.
func gardenEvent(i int) events.Event {
	return ev("plot_0_0", &plotsv1.GardenPlanted{PlotId: "plot_0_0", Path: gardenPath(i), AgentId: ada, AgentName: "Ada",
		GardenFiles: int64(i + 1), At: pb(sec(i))}, sec(i))
}

func gardenPath(i int) string { return fmt.Sprintf("/garden/ada/%05d.md", i) }

// resumingReader reads the live feed as a client does: it remembers the id
// of the last item read and resumes from it whenever its connection ends,
// whether it left (at a random moment) or the server ended the stream.
type resumingReader struct {
	base string
	// bases, when set, are readers of one world: each connection goes to
	// one of them at random.
	bases    []string
	want     int
	rng      *rand.Rand
	resp     *http.Response
	cancel   context.CancelFunc
	last     string
	ids      []string
	seqs     []int64
	sessions int
	err      error
}

func (r *resumingReader) connect(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	base := r.base
	if len(r.bases) > 0 {
		base = r.bases[r.rng.Intn(len(r.bases))]
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/world/events", nil)
	req.Header.Set("Accept", "text/event-stream")
	if r.last != "" {
		req.Header.Set("Last-Event-ID", r.last)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		return err
	}
	if resp.StatusCode != 200 {
		resp.Body.Close()
		cancel()
		return fmt.Errorf("resume from %q: status %d", r.last, resp.StatusCode)
	}
	r.resp, r.cancel = resp, cancel
	r.sessions++
	return nil
}

// run reads until it has every item, leaving after a random number of
// items each time (sometimes after one) and resuming.
func (r *resumingReader) run(ctx context.Context) error {
	for {
		leaveAfter := 1 + r.rng.Intn(600)
		if r.rng.Intn(4) == 0 {
			leaveAfter = 1 + r.rng.Intn(5)
		}
		err := r.read(leaveAfter)
		r.cancel()
		r.resp.Body.Close()
		if err != nil {
			return err
		}
		if len(r.ids) >= r.want {
			return nil
		}
		if err := r.connect(ctx); err != nil {
			return err
		}
	}
}

// read reads up to n items from the open connection; the stream ending
// early is no error (the reader resumes), a malformed message is.
func (r *resumingReader) read(n int) error {
	if n <= 0 || len(r.ids) >= r.want {
		return nil
	}
	return testkit.ReadStream(r.resp.Body, func(it testkit.StreamItem) bool {
		r.ids, r.seqs, r.last = append(r.ids, it.ItemID), append(r.seqs, it.Seq), it.EventID
		n--
		return n > 0 && len(r.ids) < r.want
	})
}
