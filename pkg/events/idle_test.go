package events_test

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/proto/catalog"
	ticketsv1 "sharedworld.dev/proto/tickets/v1"
)

// A relay is idle only once its outbox is published, a consumer only while
// it waits with nothing to apply; events.Pipeline says so for the process
// without reading any metric.
func TestRelayAndConsumerReportIdleness(t *testing.T) {
	kit := testkit.New(t)
	ctx, cancel := context.WithCancel(kit.Ctx())
	defer cancel()
	coll := kit.DB.Collection("tickets")

	// A consumer whose handler holds each event until released.
	release := make(chan struct{})
	applied := make(chan string, 4)
	cons := events.NewConsumer(events.ConsumerOptions{
		Service: "test", Group: "idle-test", Topics: []string{catalog.TopicTickets}, Brokers: kit.Brokers,
		Ledger: events.NewLedger(kit.DB), Logger: kit.Logger,
		Handler: func(ctx context.Context, e events.Event) error {
			select {
			case <-release:
			case <-ctx.Done():
			}
			applied <- e.ID
			return nil
		},
	})
	relay := events.NewRelay("test", kit.DB, events.NewWriter(kit.Brokers), kit.Logger, coll)
	if relay.Idle() {
		t.Fatal("a relay that has not swept its collections yet is not idle")
	}
	consDone, relayDone := make(chan struct{}), make(chan struct{})
	go func() { _ = cons.Run(ctx); close(consDone) }()
	go func() { relay.Run(ctx); close(relayDone) }()
	testkit.Eventually(t, 10*time.Second, "relay idle after its first sweep", relay.Idle)
	if !cons.Idle() {
		t.Fatal("a consumer with nothing to read is idle")
	}

	ev := events.MustNew("/services/test", "tkt_idle", &ticketsv1.TicketFiled{TicketId: "tkt_idle", Title: "t", Version: 1}, time.Now())
	if _, err := coll.InsertOne(ctx, bson.M{"_id": "tkt_idle", events.OutboxField: []events.Event{ev}}); err != nil {
		t.Fatal(err)
	}
	_, before := events.Pipeline()
	relay.Notify(coll, "tkt_idle")
	// The consumer now holds the event: it and so the pipeline are busy.
	testkit.Eventually(t, 20*time.Second, "consumer busy applying the event", func() bool { return !cons.Idle() })
	if idle, _ := events.Pipeline(); idle {
		t.Fatal("the pipeline reports idle while a consumer applies an event")
	}
	close(release)
	if id := <-applied; id != ev.ID {
		t.Fatalf("applied %s, want %s", id, ev.ID)
	}
	testkit.Eventually(t, 10*time.Second, "pipeline idle after the event was applied", func() bool {
		idle, moved := events.Pipeline()
		return idle && moved >= before+2 // published once, consumed once
	})
	if !relay.Idle() || !cons.Idle() {
		t.Fatal("relay and consumer idle once the event went through")
	}
	cancel()
	<-consDone
	<-relayDone
}
