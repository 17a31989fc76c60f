package events_test

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
	ticketsv1 "sharedworld.dev/proto/tickets/v1"
)

// On a shared database the relay's timer sweeps (a replica that stopped
// may have left events). On an exclusive one every write of the process is
// notified, so the timer sweeps only after a write in doubt: a sweep
// decodes every document, and the runner's memory peaked with it.
func TestRelayTimerSweepsOnSharedOrAfterDoubt(t *testing.T) {
	kit := testkit.New(t)
	ctx, stop := context.WithCancel(kit.Ctx())
	coll := kit.DB.Collection("tickets")
	relay := events.NewRelay("test", kit.DB, events.NewWriter(kit.Brokers), kit.Logger, coll)
	relay.SweepEvery = 10 * time.Millisecond
	done := make(chan struct{})
	go func() { relay.Run(ctx); close(done) }()
	t.Cleanup(func() { stop(); <-done })
	testkit.Eventually(t, 10*time.Second, "the start-up sweep", relay.Idle)

	// What a write answered with an error but stored after all leaves: an
	// event no Notify names.
	id := "tkt_00000001"
	ev := events.MustNew("/services/test", id, &ticketsv1.TicketFiled{TicketId: id, Title: "t", Version: 1}, time.Now())
	if _, err := coll.InsertOne(ctx, bson.M{"_id": id, "title": "t", events.OutboxField: []events.Event{ev}}); err != nil {
		t.Fatal(err)
	}
	pending := func() bool {
		n, err := coll.CountDocuments(ctx, bson.M{"_id": id, events.OutboxField: bson.M{"$exists": true, "$ne": bson.A{}}})
		if err != nil {
			t.Fatal(err)
		}
		return n == 1
	}
	if kit.DB.Mode() == mongox.Exclusive {
		// Thirty ticks without a doubt: the event stays where it is.
		for end := time.Now().Add(30 * relay.SweepEvery); time.Now().Before(end); {
			if !pending() {
				t.Fatal("the timer swept an exclusive database with no write in doubt")
			}
		}
		relay.Doubt(coll)
	}
	testkit.Eventually(t, 10*time.Second, "the unnotified event published by a timed sweep", func() bool { return !pending() })
}
