// Package store holds the tickets service's two adapters of
// domain.Repository: Store, the MongoDB adapter (production queries only),
// and Mirrored, which embeds it for the embedded default and answers reads
// from memory. Each ticket is one document in the "tickets" collection,
// holding the ticket's current state and, in its outbox, the events of its
// writes not yet published.
//
// A filing is an insert that the unique (filed_by, day, slot) key refuses
// when the filer's slot of the day is taken, so the daily limit holds under
// racing requests on every backend. Upvotes and triage are mongox.Docs
// updates: decided on the current ticket, written with their event, guarded
// by the version where other replicas write the same database.
package store

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/services/tickets/internal/domain"
)

// Encoder turns a domain event into an outbox event.
type Encoder func(domain.Event) (events.Event, error)

// Store keeps tickets in MongoDB; it is a domain.Repository.
type Store struct {
	docs   *mongox.Docs[ticketDoc, events.Event]
	encode Encoder
}

var _ domain.Repository = (*Store)(nil)

// New keeps tickets in db's "tickets" collection and tells notify (the
// outbox relay; nil: nobody) about every write that leaves events.
func New(db *mongox.DB, encode Encoder, notify mongox.Notifier) *Store {
	return &Store{docs: mongox.NewDocs[ticketDoc, events.Event](db, "tickets", notify), encode: encode}
}

// Collection is the tickets collection, whose documents carry outboxes.
func (s *Store) Collection() *mongo.Collection { return s.docs.Collection() }

// EnsureIndexes creates the unique daily-slot key and the list indexes. Each list index
// ends with (created_at desc, _id desc), the list order, so on MongoDB a page
// is one index range scan wherever it starts.
func (s *Store) EnsureIndexes(ctx context.Context) error {
	newest := []bson.E{{Key: "created_at", Value: -1}, {Key: "_id", Value: -1}}
	with := func(prefix ...bson.E) []bson.E { return append(prefix, newest...) }
	return mongox.EnsureIndexes(ctx, s.Collection(),
		mongox.Index("daily_slot", true, bson.E{Key: "filed_by", Value: 1}, bson.E{Key: "day", Value: 1}, bson.E{Key: "slot", Value: 1}),
		mongox.Index("newest", false, newest...),
		mongox.Index("status_newest", false, with(bson.E{Key: "status", Value: 1})...),
		mongox.Index("category_newest", false, with(bson.E{Key: "category", Value: 1})...),
		mongox.Index("status_category_newest", false, with(bson.E{Key: "status", Value: 1}, bson.E{Key: "category", Value: 1})...),
	)
}

// File stores a new ticket in the filer's first free slot of day. A slot
// another filing holds makes the insert a duplicate of the daily-slot key,
// and the next slot is tried; Create itself redraws a colliding id.
func (s *Store) File(ctx context.Context, filedBy, day string, slots []int, build domain.TicketBuilder) (domain.Snapshot, error) {
	return s.fileSkipping(ctx, filedBy, day, slots, nil, build)
}

// fileSkipping is File without trying the slots in taken (known held).
func (s *Store) fileSkipping(ctx context.Context, filedBy, day string, slots []int, taken map[int]bool, build domain.TicketBuilder) (domain.Snapshot, error) {
	for _, slot := range slots {
		if taken[slot] {
			continue
		}
		d, err := s.docs.Create(ctx, domain.TicketIDPrefix, func(id string) (ticketDoc, []events.Event, error) {
			ticket, filed := build(domain.TicketID(id))
			ev, err := s.encode(filed)
			if err != nil {
				return ticketDoc{}, nil, err
			}
			d := fromSnapshot(ticket.Snapshot())
			d.FiledBy, d.Day, d.Slot = filedBy, day, slot
			return d, []events.Event{ev}, nil
		})
		if errors.Is(err, mongox.ErrDuplicate) {
			continue
		}
		if err != nil {
			return domain.Snapshot{}, fmt.Errorf("file ticket: %w", err)
		}
		return d.snapshot(), nil
	}
	return domain.Snapshot{}, domain.ErrSlotsTaken
}

// Get returns the ticket, read once by _id.
func (s *Store) Get(ctx context.Context, id domain.TicketID) (domain.Snapshot, error) {
	d, err := s.docs.Get(ctx, string(id))
	if errors.Is(err, mongox.ErrNotFound) {
		return domain.Snapshot{}, domain.ErrTicketNotFound(string(id))
	}
	if err != nil {
		return domain.Snapshot{}, err
	}
	return d.snapshot(), nil
}

// Change applies fn to the current ticket and stores the result with fn's
// event in the ticket's outbox, in one write.
func (s *Store) Change(ctx context.Context, id domain.TicketID, fn func(*domain.Ticket) (domain.Event, error)) (domain.Snapshot, error) {
	d, err := s.docs.Update(ctx, string(id), func(d *ticketDoc) ([]events.Event, error) {
		ticket := domain.Restore(d.snapshot())
		ev, err := fn(ticket)
		if err != nil {
			return nil, err
		}
		out, err := s.encode(ev)
		if err != nil {
			return nil, err
		}
		d.apply(ticket.Snapshot())
		return []events.Event{out}, nil
	})
	switch {
	case errors.Is(err, mongox.ErrNotFound):
		return domain.Snapshot{}, domain.ErrTicketNotFound(string(id))
	case errors.Is(err, mongox.ErrVersionClash):
		return domain.Snapshot{}, problem.Unavailable("The ticket is changing too fast to update right now.", "Retry in a moment.")
	case err != nil:
		return domain.Snapshot{}, err
	}
	return d.snapshot(), nil
}
