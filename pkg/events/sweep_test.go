package events_test

import (
	"context"
	"fmt"
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

// A sweep on a database read in process (mongox.Scanner) publishes every
// entry the scan finds, more than one batch of documents of them, and
// leaves documents without entries alone.
func TestRelaySweepThroughScannerPublishesEveryEntry(t *testing.T) {
	sweepThroughScanner(t, false)
}

// A scan that fails leaves the sweep to the find: every entry is still
// published, once.
func TestRelaySweepFindsWhenTheScanFails(t *testing.T) {
	sweepThroughScanner(t, true)
}

func sweepThroughScanner(t *testing.T, fail bool) {
	kit := testkit.New(t)
	if kit.DB.Mode() != mongox.Exclusive {
		t.Log("only the only writer of a database reads it in process")
		return
	}
	ctx := kit.Ctx()
	f := &testkit.Finder{DB: kit.DB, Fail: fail}
	db := mongox.NewDB(kit.DB.Database, mongox.Exclusive)
	db.UseScanner(f)
	coll := db.Collection("tickets")
	var docs []any
	for i := range 450 {
		id := fmt.Sprintf("tkt_%08d", i)
		d := bson.M{"_id": id, "title": "t"}
		switch i % 3 {
		case 0:
			ev := events.MustNew("/services/test", id, &ticketsv1.TicketFiled{TicketId: id, Title: "t", Version: 1}, time.Now())
			d[events.OutboxField] = []events.Event{ev}
		case 1:
			d[events.OutboxField] = bson.A{}
		}
		docs = append(docs, d)
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	relay := events.NewRelay("test", db, events.NewWriter(kit.Brokers), kit.Logger, coll)
	relay.Kick()
	sent, err := relay.Drain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if sent != 150 || f.Scans != 1 {
		t.Fatalf("sent %d events with %d scans, want 150 with 1", sent, f.Scans)
	}
	left, err := coll.CountDocuments(ctx, bson.M{events.OutboxField: bson.M{"$exists": true, "$ne": bson.A{}}})
	if err != nil || left != 0 {
		t.Fatalf("%d documents still with outbox entries (%v)", left, err)
	}
}
