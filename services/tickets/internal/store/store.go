// Package store is the tickets service's MongoDB adapter.
//
// Every decision is an insert that a unique key can refuse, because that is
// the one write FerretDB v1 (the embedded default) applies atomically; it
// evaluates filtered updates as "read, then write", so two guarded updates
// of one document can both succeed there. Concretely:
//
//   - filings: one document per ticket, inserted once. Its unique
//     (filed_by, day, slot) key enforces the daily limit, and its outbox
//     holds ticket.filed.
//   - ticket_changes: one document per later change, _id "<ticket_id>/<v>".
//     Only one writer can create version v of a ticket, so concurrent
//     upvotes and triage are serialised by the key; the outbox holds the
//     change's event.
//   - tickets: the current state of each ticket, projected from the two
//     above, indexed for the list. The relay never writes it, so its
//     outbox clean-up cannot overwrite a state change.
//
// A crash between a decision and its projection leaves the projection one
// step behind; every read of a ticket rolls it forward from the changes, and
// Repair does the same for recent tickets at start.
package store

import (
	"context"
	"log/slog"
	"sync"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"

	eventkit "sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/tickets/internal/domain"
)

// Encoder turns a domain event into an outbox event.
type Encoder func(domain.Event) (eventkit.Event, error)

// Store keeps tickets in MongoDB.
type Store struct {
	filings *mongo.Collection
	changes *mongo.Collection
	tickets *mongo.Collection
	encode  Encoder
	notify  eventkit.Notifier
	log     *slog.Logger
	// locks serialise, within this process, every write to one ticket's
	// projection, so a read that rolls it forward never interleaves with a
	// change being projected (see mongox.Locks).
	db *mongox.DB

	mu    sync.Mutex
	stale map[string]bool // projections whose last write failed; retried by Run

	index *memIndex // list order in memory, only when this process is the only writer
}

// New uses db's "filings", "ticket_changes" and "tickets" collections.
// locks are the process's document locks (nil: a set of its own).
func New(db *mongox.DB, encode Encoder, notify eventkit.Notifier, log *slog.Logger) *Store {
	if notify == nil {
		notify = eventkit.NopNotifier{}
	}
	if log == nil {
		log = slog.Default()
	}
	st := &Store{
		filings: db.Collection("filings"), changes: db.Collection("ticket_changes"), tickets: db.Collection("tickets"),
		encode: encode, notify: notify, log: log, db: db, stale: map[string]bool{},
	}
	if db.Exclusive() {
		st.index = newMemIndex()
	}
	return st
}

// OutboxCollections are the collections whose documents carry outboxes.
func (s *Store) OutboxCollections() []*mongo.Collection {
	return []*mongo.Collection{s.filings, s.changes}
}

// EnsureIndexes creates the unique daily-slot key and the list indexes. Each
// list index ends with (created_at desc, _id desc), the list order, so a
// page is one index range scan wherever it starts.
func (s *Store) EnsureIndexes(ctx context.Context) error {
	newest := []bson.E{{Key: "created_at", Value: -1}, {Key: "_id", Value: -1}}
	with := func(prefix ...bson.E) []bson.E { return append(prefix, newest...) }
	if err := mongox.EnsureIndexes(ctx, s.filings,
		mongox.Index("daily_slot", true, bson.E{Key: "filed_by", Value: 1}, bson.E{Key: "day", Value: 1}, bson.E{Key: "slot", Value: 1}),
		mongox.Index("created_at", false, bson.E{Key: "created_at", Value: 1}),
	); err != nil {
		return err
	}
	if err := mongox.EnsureIndexes(ctx, s.changes, mongox.Index("at", false, bson.E{Key: "at", Value: 1})); err != nil {
		return err
	}
	if err := mongox.EnsureIndexes(ctx, s.tickets,
		mongox.Index("newest", false, newest...),
		mongox.Index("status_newest", false, with(bson.E{Key: "status", Value: 1})...),
		mongox.Index("category_newest", false, with(bson.E{Key: "category", Value: 1})...),
		mongox.Index("status_category_newest", false, with(bson.E{Key: "status", Value: 1}, bson.E{Key: "category", Value: 1})...),
	); err != nil {
		return err
	}
	return s.loadIndex(ctx)
}
