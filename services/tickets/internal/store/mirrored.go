package store

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/tickets/internal/domain"
)

// Mirrored is the tickets adapter of the embedded default, where this
// process is the database's only writer: the MongoDB adapter, whose writes
// it keeps in an in-memory copy, answering a read by id, a page and the
// counts from memory. FerretDB v1 answers only exact _id lookups from an
// index and scans the whole collection for a sorted page or a count; here
// those cost what they cost on MongoDB's indexes.
type Mirrored struct {
	*Store
	copy *ticketMirror
}

var _ domain.Repository = (*Mirrored)(nil)

// NewMirrored keeps tickets as New does, with the in-memory copy. db must be
// exclusive: another writer's changes would never reach the copy.
func NewMirrored(db *mongox.DB, encode Encoder, notify mongox.Notifier) *Mirrored {
	copy := ticketMirrorOf(db)
	if copy == nil {
		panic("store.NewMirrored: the database is shared; use New")
	}
	m := &Mirrored{Store: New(db, encode, notify), copy: copy}
	// mongox.Docs reports every write while it holds the ticket's lock, so
	// the copy is never behind a write that was answered.
	m.docs.Written = func(id string, d *ticketDoc) {
		if d == nil {
			copy.Delete(id)
			return
		}
		copy.Put(*d)
	}
	return m
}

// EnsureIndexes creates the indexes and loads the stored tickets into memory.
func (m *Mirrored) EnsureIndexes(ctx context.Context) error {
	if err := m.Store.EnsureIndexes(ctx); err != nil {
		return err
	}
	return m.load(ctx)
}

// load fills the copy from the stored tickets (one scan, at start; later
// calls return at once).
func (m *Mirrored) load(ctx context.Context) error {
	return m.copy.Load(ctx, func(ctx context.Context) ([]ticketDoc, error) {
		return mongox.ScanAll[ticketDoc](ctx, m.copy.Mirror, m.Collection(), bson.M{mongox.OutboxField: 0})
	})
}

// File skips the daily slots the filer is known to hold: the n-th filing of
// a day is one insert, not n inserts and n-1 reads (the unique key still
// settles two filings racing for one slot).
func (m *Mirrored) File(ctx context.Context, filedBy, day string, slots []int, build domain.TicketBuilder) (domain.Snapshot, error) {
	if err := m.load(ctx); err != nil {
		return domain.Snapshot{}, err
	}
	return m.fileSkipping(ctx, filedBy, day, slots, m.copy.taken(filedBy, day), build)
}

// Get reads the ticket from memory.
func (m *Mirrored) Get(ctx context.Context, id domain.TicketID) (domain.Snapshot, error) {
	if err := m.load(ctx); err != nil {
		return domain.Snapshot{}, err
	}
	d, ok := m.copy.Get(string(id))
	if !ok {
		return domain.Snapshot{}, domain.ErrTicketNotFound(string(id))
	}
	return d.snapshot(), nil
}

// List walks the list order in memory.
func (m *Mirrored) List(ctx context.Context, q domain.ListQuery) ([]domain.Snapshot, error) {
	if err := m.load(ctx); err != nil {
		return nil, err
	}
	return m.copy.list(q), nil
}

// Counts are the lengths of the per-status orders.
func (m *Mirrored) Counts(ctx context.Context) (domain.Counts, error) {
	if err := m.load(ctx); err != nil {
		return domain.Counts{}, err
	}
	return m.copy.counts(), nil
}
