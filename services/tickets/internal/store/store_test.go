package store

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	eventkit "sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/tickets/internal/domain"
	ticketevents "sharedworld.dev/services/tickets/internal/events"
)

func TestMain(m *testing.M) { testkit.Main(m) }

var at = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

func newStore(t *testing.T) *Store {
	t.Helper()
	kit := testkit.New(t)
	s := New(kit.DB, ticketevents.Encode, nil, kit.Logger)
	if err := s.EnsureIndexes(kit.Ctx()); err != nil {
		t.Fatal(err)
	}
	return s
}

func fileOne(t *testing.T, s *Store, by string) domain.Snapshot {
	t.Helper()
	snap, err := s.File(context.Background(), by, domain.Day(at), []int{1, 2, 3, 4, 5}, func(id domain.TicketID) (*domain.Ticket, domain.Filed) {
		return mustFiling(t).Ticket(id, by, at)
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func mustFiling(t *testing.T) domain.Filing {
	f, err := domain.ParseFiling(domain.FileRequest{Category: "bug", Title: "t", Description: "d"})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestFilingStoresTicketSlotAndEvent(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	snap := fileOne(t, s, "emb_a")
	var f filingDoc
	if err := s.filings.FindOne(ctx, bson.M{"_id": string(snap.ID)}).Decode(&f); err != nil {
		t.Fatal(err)
	}
	if f.Ticket.FiledBy != "emb_a" || f.Ticket.Title != "t" || f.Day != "2026-11-22" || f.Slot != 1 || len(f.Outbox) != 1 || f.Outbox[0].Type != "ticket.filed" {
		t.Fatalf("§5 filing document = %+v", f)
	}
	for range 4 {
		fileOne(t, s, "emb_a")
	}
	_, err := s.File(ctx, "emb_a", domain.Day(at), []int{1, 2, 3, 4, 5}, func(id domain.TicketID) (*domain.Ticket, domain.Filed) {
		return mustFiling(t).Ticket(id, "emb_a", at)
	})
	if err != domain.ErrSlotsTaken {
		t.Fatalf("§5 sixth filing of the day: %v, want ErrSlotsTaken", err)
	}
	if n, _ := s.filings.CountDocuments(ctx, bson.M{}); n != 5 {
		t.Fatalf("§11 a refused filing wrote something: %d filings", n)
	}
}

// A crash after a filing or a change but before its projection leaves the
// projection behind; reads and Repair roll it forward from the log.
func TestProjectionRollsForwardAfterACrash(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	a := fileOne(t, s, "emb_a")
	b := fileOne(t, s, "emb_b")

	// Simulate the crash: drop a's projection entirely, and write b's change
	// without projecting it.
	if _, err := s.tickets.DeleteOne(ctx, bson.M{"_id": string(a.ID)}); err != nil {
		t.Fatal(err)
	}
	tb := domain.Restore(b)
	ev, err := tb.Apply(domain.Triage{To: domain.StatusResolved, Response: "done"}, at.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := ticketevents.Encode(ev)
	after := tb.Snapshot()
	if _, err := s.changes.InsertOne(ctx, changeDoc{ID: changeID(string(b.ID), 2), TicketID: string(b.ID), Version: 2, At: after.UpdatedAt,
		Status: string(after.Status), Response: after.Response, UpdatedAt: after.UpdatedAt, Outbox: []eventkit.Event{out}}); err != nil {
		t.Fatal(err)
	}
	list := func() map[domain.TicketID]domain.Snapshot {
		ts, err := s.List(ctx, ListQuery{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		m := map[domain.TicketID]domain.Snapshot{}
		for _, x := range ts {
			m[x.ID] = x
		}
		return m
	}
	before := list()
	if _, listed := before[a.ID]; listed || before[b.ID].Status != domain.StatusOpen {
		t.Fatalf("the simulated crash did not leave the projection behind: %v", before)
	}

	got, err := s.Get(ctx, b.ID)
	if err != nil || got.Status != domain.StatusResolved || got.Response != "done" || got.Version != 2 {
		t.Fatalf("Get must roll b forward: %+v, %v", got, err)
	}
	if err := s.Repair(ctx, at.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	now := list()
	if now[a.ID].ID != a.ID || now[b.ID].Status != domain.StatusResolved {
		t.Fatalf("after Repair the list must show both tickets current: %v", now)
	}
}

// A change another replica committed but this one has not projected yet is
// part of the state Change decides on.
func TestChangeDecidesOnAnotherReplicasCommittedChange(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	snap := fileOne(t, s, "emb_filer")
	// The other replica's upvote, already committed as version 2 but not yet
	// projected here.
	other := domain.Restore(snap)
	ev, _ := other.Upvote("emb_other", at)
	out, _ := ticketevents.Encode(ev)
	if _, err := s.changes.InsertOne(ctx, changeDoc{ID: changeID(string(snap.ID), 2), TicketID: string(snap.ID), Version: 2, At: at,
		Status: "open", UpdatedAt: at, Upvotes: 1, Upvoter: "emb_other", Outbox: []eventkit.Event{out}}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Change(ctx, snap.ID, func(tk *domain.Ticket) (domain.Event, error) { return tk.Upvote("emb_other", at) })
	if !problem.IsKind(err, problem.KindConflict) {
		t.Fatalf("§5 the same citizen's second upvote (first on another replica): %v, want conflict", err)
	}
	got, err := s.Change(ctx, snap.ID, func(tk *domain.Ticket) (domain.Event, error) { return tk.Upvote("emb_third", at) })
	if err != nil || got.Upvotes != 2 || got.Version != 3 {
		t.Fatalf("§5 a third citizen's upvote after the other replica's: %+v, %v", got, err)
	}
}
