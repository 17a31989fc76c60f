package store

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	eventkit "sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/services/tickets/internal/domain"
)

// Get returns the current ticket, rolling its projection forward when a
// change has not been projected yet; a problem 404 for an unknown id.
func (s *Store) Get(ctx context.Context, id domain.TicketID) (domain.Snapshot, error) {
	d, found, err := s.readProjection(ctx, string(id))
	if err != nil {
		return domain.Snapshot{}, err
	}
	if found {
		pending, err := exists(ctx, s.changes, changeID(d.ID, d.Version+1))
		if err != nil {
			return domain.Snapshot{}, err
		}
		if !pending {
			return d.snapshot(), nil
		}
	}
	unlock := s.db.LockKey(string(id))
	defer unlock()
	d, found, err = s.load(ctx, string(id))
	if err != nil {
		return domain.Snapshot{}, err
	}
	if !found {
		return domain.Snapshot{}, domain.ErrTicketNotFound(string(id))
	}
	return d.snapshot(), nil
}

// Change applies fn to the current ticket and stores the change with its
// event as the ticket's next version. fn may run more than once when another
// replica changes the ticket at the same moment; it must be pure.
func (s *Store) Change(ctx context.Context, id domain.TicketID, fn func(*domain.Ticket) (domain.Event, error)) (domain.Snapshot, error) {
	unlock := s.db.LockKey(string(id))
	defer unlock()
	for attempt := 0; attempt < 10; attempt++ {
		d, found, err := s.load(ctx, string(id))
		if err != nil {
			return domain.Snapshot{}, err
		}
		if !found {
			return domain.Snapshot{}, domain.ErrTicketNotFound(string(id))
		}
		ticket := domain.Restore(d.snapshot())
		ev, err := fn(ticket)
		if err != nil {
			return domain.Snapshot{}, err
		}
		after := ticket.Snapshot()
		out, err := s.encode(ev)
		if err != nil {
			return domain.Snapshot{}, err
		}
		ch := changeDoc{
			ID: changeID(d.ID, after.Version), TicketID: d.ID, Version: after.Version, At: after.UpdatedAt,
			Status: string(after.Status), Response: after.Response, UpdatedAt: after.UpdatedAt, Upvotes: after.Upvotes,
			Outbox: []eventkit.Event{out},
		}
		if up, ok := ev.(domain.Upvoted); ok {
			ch.Upvoter, ch.At = up.AgentID, up.At
		}
		if after.Version != d.Version+1 {
			return domain.Snapshot{}, fmt.Errorf("change ticket %s: version %d after %d", d.ID, after.Version, d.Version)
		}
		_, err = s.changes.InsertOne(ctx, ch)
		if mongox.IsDuplicate(err) {
			continue // another replica wrote this version first: decide again on its result
		}
		if err != nil {
			return domain.Snapshot{}, fmt.Errorf("change ticket %s: %w", d.ID, err)
		}
		s.notify.Notify(s.changes, ch.ID)
		s.project(ctx, d, ch)
		return after, nil
	}
	return domain.Snapshot{}, problem.Unavailable("The ticket is changing too fast to update right now.", "Retry in a moment.")
}

// load reads the projection (creating it from the filing if missing) and
// rolls it forward over unprojected changes. Callers hold the ticket's lock.
func (s *Store) load(ctx context.Context, id string) (ticketDoc, bool, error) {
	d, found, err := s.readProjection(ctx, id)
	if err != nil {
		return d, false, err
	}
	if !found {
		var f filingDoc
		err := s.filings.FindOne(ctx, bson.M{"_id": id}, options.FindOne().SetProjection(bson.M{eventkit.OutboxField: 0})).Decode(&f)
		if errors.Is(err, mongo.ErrNoDocuments) {
			return d, false, nil
		}
		if err != nil {
			return d, false, fmt.Errorf("read filing %s: %w", id, err)
		}
		d = f.Ticket
		if _, err := s.tickets.InsertOne(ctx, d); err != nil && !mongox.IsDuplicate(err) {
			return d, false, fmt.Errorf("project filing %s: %w", id, err)
		}
		s.index.put(d)
	}
	for {
		var ch changeDoc
		err := s.changes.FindOne(ctx, bson.M{"_id": changeID(id, d.Version+1)}, options.FindOne().SetProjection(bson.M{eventkit.OutboxField: 0})).Decode(&ch)
		if errors.Is(err, mongo.ErrNoDocuments) {
			s.clearStale(id)
			return d, true, nil
		}
		if err != nil {
			return d, false, fmt.Errorf("read change %s: %w", changeID(id, d.Version+1), err)
		}
		if err := s.writeProjection(ctx, d, ch); err != nil {
			return d, false, err
		}
		d = ch.applyTo(d)
	}
}

// project writes a change into the projection. The change is already
// committed, so a failure here is not the caller's: the ticket is marked
// stale and rolled forward by the next read or by Run.
func (s *Store) project(ctx context.Context, before ticketDoc, ch changeDoc) {
	if err := s.writeProjection(ctx, before, ch); err != nil {
		s.markStale(before.ID, err)
	}
}

// writeProjection moves the projection from before's version to the
// change's; the version guard makes a repeated roll-forward a no-op.
func (s *Store) writeProjection(ctx context.Context, before ticketDoc, ch changeDoc) error {
	after := ch.applyTo(before)
	// The caller holds the ticket's lock; on the exclusive embedded backend
	// that is the guard, and an exact _id filter is an index lookup there.
	_, err := s.tickets.UpdateOne(ctx, s.db.Guarded(before.ID, bson.M{"version": before.Version}), bson.M{"$set": bson.M{
		"status": after.Status, "response": after.Response, "updated_at": after.UpdatedAt,
		"upvotes": after.Upvotes, "upvoters": after.Upvoters, "version": after.Version,
	}})
	if err != nil {
		return fmt.Errorf("project change %s: %w", ch.ID, err)
	}
	s.index.put(after)
	return nil
}

func (s *Store) readProjection(ctx context.Context, id string) (ticketDoc, bool, error) {
	var d ticketDoc
	err := s.tickets.FindOne(ctx, bson.M{"_id": id}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return d, false, nil
	}
	if err != nil {
		return d, false, fmt.Errorf("read ticket %s: %w", id, err)
	}
	return d, true, nil
}

func exists(ctx context.Context, coll *mongo.Collection, id string) (bool, error) {
	err := coll.FindOne(ctx, bson.M{"_id": id}, options.FindOne().SetProjection(bson.M{"_id": 1})).Err()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("look up %s in %s: %w", id, coll.Name(), err)
	}
	return true, nil
}
