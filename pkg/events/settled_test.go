package events_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/segmentio/kafka-go"
	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/metrics"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
	ticketsv1 "sharedworld.dev/proto/tickets/v1"
)

// refusing is a broker that takes nothing.
type refusing struct{}

func (refusing) WriteMessages(context.Context, ...kafka.Message) error {
	return errors.New("broker unreachable")
}

// life is one run of a process on the database: a fresh handle that opens
// the token of the last clean stop as a host does at start, and a relay
// running on it until stop.
type life struct {
	db    *mongox.DB
	relay *events.Relay
	stop  func()
}

func live(t *testing.T, kit *testkit.Kit, dir, service string, pub events.Publisher) *life {
	t.Helper()
	db := mongox.NewDB(kit.DB.Database, kit.DB.Mode())
	if err := db.OpenSnapshot(kit.Ctx(), dir, kit.Logger); err != nil {
		t.Fatal(err)
	}
	relay := events.NewRelay(service, db, pub, kit.Logger, db.Collection("tickets"))
	ctx, cancel := context.WithCancel(kit.Ctx())
	done := make(chan struct{})
	go func() { relay.Run(ctx); close(done) }()
	l := &life{db: db, relay: relay, stop: func() { cancel(); <-done }}
	t.Cleanup(l.stop)
	return l
}

// cleanStop ends the relay and writes what a host's clean stop writes.
func (l *life) cleanStop(t *testing.T, kit *testkit.Kit, dir string) {
	t.Helper()
	l.stop()
	if _, err := l.db.WriteSnapshot(kit.Ctx(), dir, time.Now().Add(2*time.Second)); err != nil {
		t.Fatal(err)
	}
}

// The start of an exclusive database sweeps every outbox only when the
// last run may have left something in one: not after a clean stop whose
// relays ended with nothing to publish, but after a crash (no token), and
// after a clean stop whose last publish failed, whose event the sweep
// then publishes, and after one with a write in doubt. A shared database
// always sweeps at start.
func TestRelaySweepsAtStartOnlyWhenTheLastStopMayHaveLeftEvents(t *testing.T) {
	kit := testkit.New(t)
	dir := t.TempDir()
	service := "settled-" + kit.DB.Name()
	sweeps := func() float64 { return testutil.ToFloat64(metrics.OutboxSweeps.WithLabelValues(service)) }
	exclusive := kit.DB.Mode() == mongox.Exclusive
	coll := kit.DB.Collection("tickets")
	pending := func(id string) bool {
		n, err := coll.CountDocuments(kit.Ctx(), bson.M{"_id": id, events.OutboxField: bson.M{"$exists": true, "$ne": bson.A{}}})
		if err != nil {
			t.Fatal(err)
		}
		return n == 1
	}
	file := func(l *life, id string) {
		ev := events.MustNew("/services/test", id, &ticketsv1.TicketFiled{TicketId: id, Title: "t", Version: 1}, time.Now())
		if _, err := coll.InsertOne(kit.Ctx(), bson.M{"_id": id, "title": "t", events.OutboxField: []events.Event{ev}}); err != nil {
			t.Fatal(err)
		}
		l.relay.Notify(l.db.Collection("tickets"), id)
	}
	writer := events.NewWriter(kit.Brokers)
	startSweep := func(l *life, want float64, before float64) {
		t.Helper()
		testkit.Eventually(t, 10*time.Second, "the relay idle after its start", l.relay.Idle)
		if got := sweeps() - before; got != want {
			t.Fatalf("the start swept %v times, want %v", got, want)
		}
	}
	ifExclusive := func(v float64) float64 {
		if exclusive {
			return v
		}
		return 1
	}

	// A first start knows nothing of the last run: it sweeps.
	before := sweeps()
	first := live(t, kit, dir, service, writer)
	startSweep(first, 1, before)
	file(first, "tkt_00000001")
	testkit.Eventually(t, 10*time.Second, "the notified event published", func() bool { return !pending("tkt_00000001") })
	testkit.Eventually(t, 10*time.Second, "the relay idle", first.relay.Idle)
	first.cleanStop(t, kit, dir)

	// After a clean stop with every event published: no sweep.
	before = sweeps()
	clean := live(t, kit, dir, service, writer)
	startSweep(clean, ifExclusive(0), before)
	// ... then a crash (no clean stop): the next start sweeps.
	clean.stop()
	before = sweeps()
	afterCrash := live(t, kit, dir, service, writer)
	startSweep(afterCrash, 1, before)
	afterCrash.cleanStop(t, kit, dir)

	// A clean stop whose last publish failed leaves the event in the
	// outbox and says so: the next start sweeps and publishes it.
	before = sweeps()
	failing := live(t, kit, dir, service, refusing{})
	startSweep(failing, ifExclusive(0), before)
	file(failing, "tkt_00000002")
	failing.cleanStop(t, kit, dir)
	if !pending("tkt_00000002") {
		t.Fatal("a refused publish emptied the outbox")
	}
	before = sweeps()
	next := live(t, kit, dir, service, writer)
	testkit.Eventually(t, 10*time.Second, "the event a failed publish left published after the restart", func() bool { return !pending("tkt_00000002") })
	startSweep(next, 1, before)

	// A write in doubt (stored, perhaps, with events nobody notified)
	// keeps the next start's sweep too.
	next.relay.Doubt(coll)
	next.cleanStop(t, kit, dir)
	before = sweeps()
	startSweep(live(t, kit, dir, service, writer), 1, before)
}
