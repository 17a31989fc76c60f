package domain

import "time"

// Event is something that happened to a ticket and must be published
// (ticket.filed, ticket.status_changed, ticket.upvoted). Events are returned
// by the methods that cause them so the store can write them into the
// ticket's outbox in the same write as the new state.
type Event interface{ ticketID() TicketID }

// Filed is ticket.filed: the new ticket as it was stored.
type Filed struct {
	Ticket Snapshot
}

// StatusChanged is ticket.status_changed. It repeats the category, title and
// creation time so that a consumer that missed ticket.filed can still show
// the ticket.
type StatusChanged struct {
	TicketID  TicketID
	From, To  Status
	Response  string
	At        time.Time
	Category  Category
	Title     string
	CreatedAt time.Time
	Version   uint64
}

// Upvoted is ticket.upvoted, with the total after this upvote.
type Upvoted struct {
	TicketID TicketID
	AgentID  string
	Upvotes  int64
	At       time.Time
	Version  uint64
}

func (e Filed) ticketID() TicketID         { return e.Ticket.ID }
func (e StatusChanged) ticketID() TicketID { return e.TicketID }
func (e Upvoted) ticketID() TicketID       { return e.TicketID }

// TicketOf returns the id of the ticket an event is about (the Kafka key).
func TicketOf(e Event) TicketID { return e.ticketID() }
