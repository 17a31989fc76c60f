package tickets_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/proto/catalog"
	ticketsv1 "sharedworld.dev/proto/tickets/v1"
	"sharedworld.dev/services/tickets"
)

// collect consumes world.tickets from the start into a slice.
func collect(t *testing.T, kit *testkit.Kit) func() []events.Event {
	var mu sync.Mutex
	var got []events.Event
	cons := events.NewConsumer(events.ConsumerOptions{Service: "probe", Group: "probe", Topics: []string{catalog.TopicTickets}, Brokers: kit.Brokers,
		Handler: func(_ context.Context, e events.Event) error {
			mu.Lock()
			got = append(got, e)
			mu.Unlock()
			return nil
		}})
	go func() { _ = cons.Run(kit.Ctx()) }()
	return func() []events.Event { mu.Lock(); defer mu.Unlock(); return append([]events.Event(nil), got...) }
}

// The service is built but its background work (the relay) is not started
// until after the writes: the events wait in the outbox and are published
// once it runs, in order, keyed by ticket_id.
func TestTicketEventsWaitInTheOutboxAndReachKafka(t *testing.T) {
	kit := testkit.New(t)
	clk := clock.NewFixed(start)
	svc, err := tickets.New(kit.Ctx(), kit.Deps(clk), tickets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := &world{kit: kit, app: kit.App(svc), svc: svc, clock: clk}
	ada, bob := w.citizen("Ada"), w.citizen("Bob")
	id := w.file(t, ada, "bug", "Feed skips items")
	w.advance(time.Minute)
	w.do(t, http.MethodPost, "/api/world/tickets/"+id+"/upvote", nil, bob.Headers()).ExpectStatus(t, 200)
	w.advance(time.Minute)
	w.triage(t, id, map[string]any{"status": "resolved", "response": "Fixed."}).ExpectStatus(t, 200)
	// Refused requests publish nothing.
	w.do(t, http.MethodPost, "/api/world/tickets/"+id+"/upvote", nil, bob.Headers()).ExpectError(t, 409, "conflict")
	w.triage(t, id, map[string]any{"status": "open"}).ExpectError(t, 409, "conflict")

	got := collect(t, kit)
	kit.Run(svc)
	// A marker filed after everything else: once its event is out, anything
	// the refused requests had written would be out too.
	marker := w.file(t, bob, "docs", "marker")
	testkit.Eventually(t, 20*time.Second, "four ticket events on world.tickets", func() bool { return len(got()) >= 4 })

	var evs []events.Event
	for _, e := range got() {
		if e.Subject == marker {
			if e.Type != catalog.TypeTicketFiled {
				t.Fatalf("marker event %s", e.Type)
			}
			continue
		}
		evs = append(evs, e)
	}
	want := []string{catalog.TypeTicketFiled, catalog.TypeTicketUpvoted, catalog.TypeTicketStatusChanged}
	if len(evs) != len(want) {
		t.Fatalf("%d events for the ticket, want exactly %d (refused requests publish nothing)", len(evs), len(want))
	}
	for i, e := range evs {
		if e.Type != want[i] || e.Subject != id || e.Source != "/services/tickets" {
			t.Fatalf("event %d: type %s subject %s source %s", i, e.Type, e.Subject, e.Source)
		}
	}
	m0, _ := evs[0].Decode()
	filed := m0.(*ticketsv1.TicketFiled)
	if filed.GetTitle() != "Feed skips items" || filed.GetFiledBy() != ada.ID || filed.GetStatus() != "open" || filed.GetVersion() != 1 ||
		!filed.GetCreatedAt().AsTime().Equal(start) {
		t.Fatalf("ticket.filed payload: %v", filed)
	}
	m1, _ := evs[1].Decode()
	if up := m1.(*ticketsv1.TicketUpvoted); up.GetAgentId() != bob.ID || up.GetUpvotes() != 1 || up.GetVersion() != 2 {
		t.Fatalf("ticket.upvoted payload: %v", up)
	}
	m2, _ := evs[2].Decode()
	if ch := m2.(*ticketsv1.TicketStatusChanged); ch.GetFrom() != "open" || ch.GetTo() != "resolved" || ch.GetResponse() != "Fixed." ||
		ch.GetTitle() != "Feed skips items" || ch.GetVersion() != 3 || !ch.GetChangedAt().AsTime().Equal(start.Add(2*time.Minute)) {
		t.Fatalf("ticket.status_changed payload: %v", ch)
	}
}
