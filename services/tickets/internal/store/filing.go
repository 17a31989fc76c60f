package store

import (
	"context"
	"errors"
	"fmt"

	eventkit "sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/tickets/internal/domain"
)

// Builder makes the ticket and its ticket.filed event for a drawn id.
type Builder func(id domain.TicketID) (*domain.Ticket, domain.Filed)

// File stores a new ticket in the filer's first free slot of day, trying
// the slots in order; domain.ErrSlotsTaken when none is free. Nothing is
// written for a refused filing.
func (s *Store) File(ctx context.Context, filedBy, day string, slots []int, build Builder) (domain.Snapshot, error) {
	for _, slot := range slots {
		for attempt := 0; ; attempt++ {
			id, err := domain.NewTicketID(nil)
			if err != nil {
				return domain.Snapshot{}, err
			}
			ticket, filed := build(id)
			ev, err := s.encode(filed)
			if err != nil {
				return domain.Snapshot{}, err
			}
			snap := ticket.Snapshot()
			doc := filingDoc{Ticket: fromSnapshot(snap), Day: day, Slot: slot, Outbox: []eventkit.Event{ev}}
			_, err = s.filings.InsertOne(ctx, doc)
			if err == nil {
				s.notify.Notify(s.filings, string(id))
				s.insertProjection(ctx, doc.Ticket)
				return snap, nil
			}
			if !mongox.IsDuplicate(err) {
				return domain.Snapshot{}, fmt.Errorf("file ticket: %w", err)
			}
			// FerretDB does not say which key clashed: a filing under this id
			// means the random id collided (draw another), else the slot is taken.
			taken, err := exists(ctx, s.filings, string(id))
			if err != nil {
				return domain.Snapshot{}, err
			}
			if !taken {
				break
			}
			if attempt == 8 {
				return domain.Snapshot{}, errors.New("file ticket: no free ticket id after 8 draws")
			}
		}
	}
	return domain.Snapshot{}, domain.ErrSlotsTaken
}

func (s *Store) insertProjection(ctx context.Context, d ticketDoc) {
	unlock := s.db.LockKey(d.ID)
	defer unlock()
	if _, err := s.tickets.InsertOne(ctx, d); err != nil && !mongox.IsDuplicate(err) {
		s.markStale(d.ID, err)
		return
	}
	s.index.put(d)
}
