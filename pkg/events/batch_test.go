package events_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/proto/catalog"
	ticketsv1 "sharedworld.dev/proto/tickets/v1"
)

// batchProbe counts every application of each ticket's event, by batch
// and one by one, and fails its first batch.
type batchProbe struct {
	counter
	mu       sync.Mutex
	batches  []int
	failOnce bool
	singles  map[string]bool // ids of the events applied one by one
}

func (p *batchProbe) batch(ctx context.Context, evs []events.Event) error {
	p.mu.Lock()
	fail := !p.failOnce
	p.failOnce = true
	p.batches = append(p.batches, len(evs))
	p.mu.Unlock()
	if fail {
		return errors.New("the store is away")
	}
	for _, e := range evs {
		if err := p.counter.handle(ctx, e); err != nil {
			return err
		}
	}
	return nil
}

func (p *batchProbe) single(ctx context.Context, e events.Event) error {
	p.mu.Lock()
	p.singles[e.ID] = true
	p.mu.Unlock()
	return p.counter.handle(ctx, e)
}

// A backlog is applied in batches; a failed batch is applied again one
// event at a time; repeated events, within a batch or across batches, are
// dropped by the ledger: every event is applied exactly once.
func TestConsumerAppliesABacklogInBatches(t *testing.T) {
	kit := testkit.New(t)
	const n = 400
	now := time.Now()
	var evs []events.Event
	for i := range n {
		id := fmt.Sprintf("tkt_%08x", i)
		evs = append(evs, events.MustNew("/services/test", id, &ticketsv1.TicketFiled{TicketId: id, Title: "t", Version: 1}, now))
	}

	probe := &batchProbe{counter: counter{seen: map[string]int{}}, singles: map[string]bool{}}
	cons := events.NewConsumer(events.ConsumerOptions{
		Service: "test", Group: "batch-test", Topics: []string{catalog.TopicTickets}, Brokers: kit.Brokers,
		Ledger: events.NewLedger(kit.DB), Handler: probe.single, Batch: probe.batch, Logger: kit.Logger,
	})
	// The first backlog meets the failing batch; the second repeats some
	// of the first's events and some of its own.
	kit.Publish(evs[:200]...)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = cons.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	testkit.Eventually(t, 60*time.Second, "first backlog applied", func() bool { d, _ := probe.snapshot(); return d == 200 })
	kit.Publish(slices.Concat(evs[100:150], evs[200:], evs[300:350])...)
	testkit.Eventually(t, 60*time.Second, "every event applied", func() bool { d, _ := probe.snapshot(); return d == n })

	// A marker after the backlog tells that the consumer got past every
	// repeat.
	marker := events.MustNew("/services/test", "tkt_marker", &ticketsv1.TicketFiled{TicketId: "tkt_marker", Version: 1}, now)
	kit.Publish(append(evs[:10:10], marker)...)
	testkit.Eventually(t, 30*time.Second, "marker applied", func() bool { d, _ := probe.snapshot(); return d == n+1 })
	if _, repeats := probe.snapshot(); len(repeats) > 0 {
		t.Fatalf("events applied more than once: %v", repeats)
	}
	probe.mu.Lock()
	defer probe.mu.Unlock()
	largest := 0
	for _, b := range probe.batches[1:] {
		largest = max(largest, b)
	}
	if largest < 50 {
		t.Fatalf("a backlog of %d events came in batches of at most %d: %v", n-200, largest, probe.batches)
	}
	delete(probe.singles, marker.ID) // alone, it may come one by one
	if len(probe.singles) != probe.batches[0] {
		t.Fatalf("%d events applied one by one: want the failed batch's %d", len(probe.singles), probe.batches[0])
	}
}

// The ledger records a batch in one write, a repeat of an event already
// recorded included, and finds which of a batch's ids it holds.
func TestLedgerRecordsABatchAndFindsItsSeen(t *testing.T) {
	kit := testkit.New(t)
	ledger := events.NewLedger(kit.DB)
	now := time.Now()
	ev := func(id string) events.Event {
		return events.MustNew("/services/test", id, &ticketsv1.TicketFiled{TicketId: id, Version: 1}, now)
	}
	a, b, c := ev("tkt_a"), ev("tkt_b"), ev("tkt_c")
	if err := ledger.RecordAll(kit.Ctx(), []events.Event{a, b}); err != nil {
		t.Fatal(err)
	}
	if err := ledger.RecordAll(kit.Ctx(), []events.Event{b, c}); err != nil {
		t.Fatalf("recording a batch with an event recorded before: %v", err)
	}
	seen, err := ledger.SeenAmong(kit.Ctx(), []string{a.ID, c.ID, "tkt_unseen"})
	if err != nil {
		t.Fatal(err)
	}
	if !seen[a.ID] || !seen[c.ID] || seen["tkt_unseen"] || len(seen) != 2 {
		t.Fatalf("seen %v, want %s and %s only", seen, a.ID, c.ID)
	}
}
