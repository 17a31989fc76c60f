package messages

import (
	"testing"
	"time"

	"sharedworld.dev/proto/catalog"
	ticketsv1 "sharedworld.dev/proto/tickets/v1"
	"sharedworld.dev/services/tickets/internal/domain"
)

var at = time.Date(2026, 11, 22, 9, 15, 3, 127e6, time.UTC)

func TestEncode(t *testing.T) {
	t.Parallel()
	filed := domain.Filed{Ticket: domain.Snapshot{ID: "tkt_0a1b2c3d", Category: domain.CategoryBug, Title: "Feed skips",
		Severity: domain.SeverityHigh, Status: domain.StatusOpen, CreatedAt: at, UpdatedAt: at, FiledBy: "emb_x", Version: 1}}
	changed := domain.StatusChanged{TicketID: "tkt_0a1b2c3d", From: domain.StatusOpen, To: domain.StatusResolved, Response: "fixed",
		At: at.Add(time.Hour), Category: domain.CategoryBug, Title: "Feed skips", CreatedAt: at, Version: 2}
	upvoted := domain.Upvoted{TicketID: "tkt_0a1b2c3d", AgentID: "emb_y", Upvotes: 3, At: at.Add(time.Minute), Version: 5}

	tests := []struct {
		name  string
		in    domain.Event
		typ   string
		check func(t *testing.T, m any)
	}{
		{"§5 ticket.filed carries the ticket", filed, catalog.TypeTicketFiled, func(t *testing.T, m any) {
			p := m.(*ticketsv1.TicketFiled)
			if p.GetTicketId() != "tkt_0a1b2c3d" || p.GetCategory() != "bug" || p.GetTitle() != "Feed skips" || p.GetSeverity() != "high" ||
				p.GetStatus() != "open" || p.GetFiledBy() != "emb_x" || !p.GetCreatedAt().AsTime().Equal(at) || p.GetVersion() != 1 {
				t.Fatalf("TicketFiled = %v", p)
			}
		}},
		{"§5 ticket.status_changed carries both statuses and the ticket's summary", changed, catalog.TypeTicketStatusChanged, func(t *testing.T, m any) {
			p := m.(*ticketsv1.TicketStatusChanged)
			if p.GetFrom() != "open" || p.GetTo() != "resolved" || p.GetResponse() != "fixed" || p.GetTitle() != "Feed skips" ||
				p.GetCategory() != "bug" || !p.GetCreatedAt().AsTime().Equal(at) || !p.GetChangedAt().AsTime().Equal(at.Add(time.Hour)) || p.GetVersion() != 2 {
				t.Fatalf("TicketStatusChanged = %v", p)
			}
		}},
		{"§5 ticket.upvoted carries the new total", upvoted, catalog.TypeTicketUpvoted, func(t *testing.T, m any) {
			p := m.(*ticketsv1.TicketUpvoted)
			if p.GetAgentId() != "emb_y" || p.GetUpvotes() != 3 || p.GetVersion() != 5 || !p.GetAt().AsTime().Equal(at.Add(time.Minute)) {
				t.Fatalf("TicketUpvoted = %v", p)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Encode(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if e.Type != tt.typ || e.Topic != catalog.TopicTickets || e.Subject != "tkt_0a1b2c3d" || e.Source != Source || e.ID == "" {
				t.Fatalf("envelope = type %s topic %s subject %s source %s id %q", e.Type, e.Topic, e.Subject, e.Source, e.ID)
			}
			m, err := e.Decode()
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, m)
		})
	}
}
