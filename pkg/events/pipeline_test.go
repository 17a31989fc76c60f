package events_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/embedded"
	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/proto/catalog"
	ticketsv1 "sharedworld.dev/proto/tickets/v1"
)

// counter is an idempotency probe: it counts how often each ticket's event was applied.
type counter struct {
	mu   sync.Mutex
	seen map[string]int
}

func (c *counter) handle(_ context.Context, e events.Event) error {
	m, err := e.Decode()
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.seen[m.(*ticketsv1.TicketFiled).GetTicketId()]++
	c.mu.Unlock()
	return nil
}

func (c *counter) snapshot() (distinct int, repeats []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, n := range c.seen {
		if n > 1 {
			repeats = append(repeats, fmt.Sprintf("%s×%d", id, n))
		}
	}
	return len(c.seen), repeats
}

// The outbox holds events while Kafka is down and delivers each exactly once
// (in effect) after it returns, even when the relay republishes.
func TestOutboxSurvivesBrokerOutageExactlyOnce(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	coll := kit.DB.Collection("tickets")
	addr := kit.Brokers[0]
	port, _ := strconv.Atoi(addr[strings.LastIndex(addr, ":")+1:])

	kit.Kafka.Stop() // the broker is down before any write

	relay := events.NewRelay("test", kit.DB, events.NewWriter(kit.Brokers), kit.Logger, coll)
	relayCtx, stopRelay := context.WithCancel(ctx)
	relayDone := make(chan struct{})
	go func() { relay.Run(relayCtx); close(relayDone) }()

	const n = 1000
	now := time.Now()
	for i := range n {
		id := fmt.Sprintf("tkt_%08x", i)
		ev := events.MustNew("/services/test", id, &ticketsv1.TicketFiled{TicketId: id, Title: "t", Version: 1}, now)
		if _, err := coll.InsertOne(ctx, bson.M{"_id": id, "title": "t", events.OutboxField: []events.Event{ev}}); err != nil {
			t.Fatalf("write %d accepted by the store: %v", i, err)
		}
		relay.Notify(coll, id)
	}
	pending := func() int64 {
		c, err := coll.CountDocuments(ctx, bson.M{events.OutboxField: bson.M{"$exists": true, "$ne": bson.A{}}})
		if err != nil {
			t.Fatalf("count pending: %v", err)
		}
		return c
	}
	if p := pending(); p != n {
		t.Fatalf("with the broker down every event must wait in the outbox: %d of %d pending", p, n)
	}

	k, err := embedded.StartKafka(port, catalog.AllTopics()...)
	if err != nil {
		t.Fatalf("restart broker on %d: %v", port, err)
	}
	t.Cleanup(k.Stop)

	testkit.Eventually(t, 60*time.Second, "outbox drained after the broker returned", func() bool { return pending() == 0 })
	stopRelay()
	<-relayDone

	// Republish a slice of already-delivered events, as a relay that crashed
	// between publishing and marking would.
	var again []events.Event
	cur, err := coll.Find(ctx, bson.M{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.M
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatal(err)
	}
	if len(docs) != n {
		t.Fatalf("want %d documents, got %d", n, len(docs))
	}
	probe := &counter{seen: map[string]int{}}
	cons := events.NewConsumer(events.ConsumerOptions{
		Service: "test", Group: "pipeline-test", Topics: []string{catalog.TopicTickets}, Brokers: k.Brokers,
		Ledger: events.NewLedger(kit.DB), Handler: probe.handle, Logger: kit.Logger,
	})
	go func() { _ = cons.Run(ctx) }()
	testkit.Eventually(t, 60*time.Second, "consumer applied all 1000 events", func() bool { d, _ := probe.snapshot(); return d == n })

	// Redeliver 50 events with their original ids: the ledger must drop them.
	// The consumer records an id after its handler returns, so the last
	// one may still be on its way.
	ledger := kit.DB.Collection("processed_events")
	var applied []struct {
		ID string `bson:"_id"`
	}
	testkit.Eventually(t, 10*time.Second, "the ledger holds every applied id", func() bool {
		cur, err := ledger.Find(ctx, bson.M{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		applied = nil
		if err := cur.All(ctx, &applied); err != nil {
			t.Fatal(err)
		}
		if len(applied) > n {
			t.Fatalf("ledger holds %d ids, want %d", len(applied), n)
		}
		return len(applied) == n
	})
	for i := range 50 {
		id := fmt.Sprintf("tkt_%08x", i)
		ev := events.MustNew("/services/test", id, &ticketsv1.TicketFiled{TicketId: id, Version: 1}, now)
		ev.ID = applied[i].ID
		again = append(again, ev)
	}
	w := events.NewWriter(k.Brokers)
	defer w.Close()
	msgs := make([]kafkaMessage, 0, len(again))
	for _, e := range again {
		msgs = append(msgs, e.Message())
	}
	if err := w.WriteMessages(ctx, msgs...); err != nil {
		t.Fatalf("redeliver: %v", err)
	}
	// A marker event after the duplicates tells us the consumer got past them.
	marker := events.MustNew("/services/test", "tkt_marker", &ticketsv1.TicketFiled{TicketId: "tkt_marker", Version: 1}, now)
	if err := w.WriteMessages(ctx, marker.Message()); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 30*time.Second, "marker after duplicates applied", func() bool { d, _ := probe.snapshot(); return d == n+1 })
	if _, repeats := probe.snapshot(); len(repeats) > 0 {
		t.Fatalf("events applied more than once: %v", repeats)
	}
}
