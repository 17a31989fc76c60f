package domain

import "context"

// Repository stores tickets. Its implementations keep the rules the domain
// cannot keep alone: a filing takes a free daily slot in the same write that
// stores the ticket, and a change is decided on the ticket's current state
// and stored with its event, even when several requests race.
type Repository interface {
	// File stores the ticket build makes in the filer's first free slot of
	// day, trying slots in order; ErrSlotsTaken when none is free. A refused
	// filing writes nothing.
	File(ctx context.Context, filedBy, day string, slots []int, build TicketBuilder) (Snapshot, error)
	// Get returns the ticket; ErrTicketNotFound for an unknown id.
	Get(ctx context.Context, id TicketID) (Snapshot, error)
	// Change applies fn to the current ticket and stores the result with
	// fn's event. fn may run more than once when another writer changes the
	// ticket at the same moment, so it must be a pure function of the ticket.
	Change(ctx context.Context, id TicketID, fn func(*Ticket) (Event, error)) (Snapshot, error)
	// List returns up to q.Limit tickets in list order after q.After,
	// without their upvoters.
	List(ctx context.Context, q ListQuery) ([]Snapshot, error)
	// Counts returns how many tickets are in each status, over all tickets.
	Counts(ctx context.Context) (Counts, error)
}

// TicketBuilder makes the ticket and its ticket.filed event for the id the
// repository drew.
type TicketBuilder func(id TicketID) (*Ticket, Filed)
