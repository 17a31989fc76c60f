// Package messages turns the tickets domain's events into the catalog's
// protobuf messages (proto/tickets/v1) wrapped as CloudEvents for the outbox.
// Tickets publishes ticket.filed, ticket.status_changed and ticket.upvoted on
// world.tickets, keyed by ticket_id; it consumes only world.identity, through
// the shared citizens directory.
package messages

import (
	"fmt"

	"google.golang.org/protobuf/types/known/timestamppb"

	eventkit "sharedworld.dev/pkg/events"
	ticketsv1 "sharedworld.dev/proto/tickets/v1"
	"sharedworld.dev/services/tickets/internal/domain"
)

// Source is the CloudEvents source of every tickets event.
const Source = "/services/tickets"

// Encode wraps a domain event for the outbox.
func Encode(e domain.Event) (eventkit.Event, error) {
	switch ev := e.(type) {
	case domain.Filed:
		t := ev.Ticket
		return eventkit.New(Source, string(t.ID), &ticketsv1.TicketFiled{
			TicketId: string(t.ID), Category: string(t.Category), Title: t.Title, Severity: string(t.Severity),
			Status: string(t.Status), FiledBy: t.FiledBy, CreatedAt: timestamppb.New(t.CreatedAt), Version: t.Version,
		}, t.CreatedAt)
	case domain.StatusChanged:
		return eventkit.New(Source, string(ev.TicketID), &ticketsv1.TicketStatusChanged{
			TicketId: string(ev.TicketID), From: string(ev.From), To: string(ev.To), Response: ev.Response,
			ChangedAt: timestamppb.New(ev.At), Category: string(ev.Category), Title: ev.Title,
			CreatedAt: timestamppb.New(ev.CreatedAt), Version: ev.Version,
		}, ev.At)
	case domain.Upvoted:
		return eventkit.New(Source, string(ev.TicketID), &ticketsv1.TicketUpvoted{
			TicketId: string(ev.TicketID), AgentId: ev.AgentID, Upvotes: ev.Upvotes, At: timestamppb.New(ev.At), Version: ev.Version,
		}, ev.At)
	default:
		return eventkit.Event{}, fmt.Errorf("tickets: no event mapping for %T", e)
	}
}
