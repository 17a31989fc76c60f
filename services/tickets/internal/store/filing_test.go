package store

import (
	"context"
	"sync/atomic"
	"testing"

	"go.mongodb.org/mongo-driver/event"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/tickets/internal/domain"
	"sharedworld.dev/services/tickets/internal/messages"
)

// With the tickets in memory (the mirrored adapter) a filing starts at the
// filer's first free slot: the fifth ticket of a day is one insert. The
// MongoDB adapter tries each held slot, refused by the key.
func TestFilingStartsAtTheFirstFreeSlot(t *testing.T) {
	for name, want := range map[string]int64{"mongodb": 5, "mirrored": 1} {
		t.Run(name, func(t *testing.T) { testFilingInserts(t, name == "mirrored", want) })
	}
}

func testFilingInserts(t *testing.T, mirrored bool, want int64) {
	kit := testkit.New(t)
	var inserts atomic.Int64
	monitor := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		if e.CommandName == "insert" && e.DatabaseName == kit.DB.Name() {
			inserts.Add(1)
		}
	}}
	client, err := mongo.Connect(kit.Ctx(), options.Client().ApplyURI(testkit.MongoURI(t)).SetMonitor(monitor))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	var s adapter = New(mongox.NewDB(client.Database(kit.DB.Name()), kit.DB.Mode()), messages.Encode, nil)
	if mirrored {
		s = NewMirrored(mongox.NewDB(client.Database(kit.DB.Name()), mongox.Exclusive), messages.Encode, nil)
	}
	if err := s.EnsureIndexes(kit.Ctx()); err != nil {
		t.Fatal(err)
	}
	file := func() domain.Snapshot {
		t.Helper()
		f := mustFiling(t, "bug")
		snap, err := s.File(kit.Ctx(), "emb_f", domain.Day(at), fiveSlots, func(id domain.TicketID) (*domain.Ticket, domain.Filed) {
			return f.Ticket(id, "emb_f", at)
		})
		if err != nil {
			t.Fatal(err)
		}
		return snap
	}
	for range 4 {
		file()
	}
	inserts.Store(0)
	snap := file()
	if got := rawTicket(t, s, snap.ID).Ticket.Slot; got != 5 {
		t.Fatalf("the fifth filing took slot %d, want 5", got)
	}
	if got := inserts.Load(); got != want {
		t.Fatalf("the fifth filing of the day made %d inserts, want %d", got, want)
	}
}
