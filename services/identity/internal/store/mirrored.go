package store

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/identity/internal/domain"
)

// MirroredCitizens is identity's adapter of the embedded default, where
// this process is the database's only writer: the MongoDB adapter, whose
// writes it keeps in an in-memory copy of every citizen, answering reads
// by id, the directory and the pending claims from memory. FerretDB would
// decode every citizen for a directory page or the repair's scan; here
// those cost what they cost on MongoDB's indexes.
type MirroredCitizens struct {
	*Citizens
	copy *citizenMirror
}

var _ domain.Repository = (*MirroredCitizens)(nil)

// NewMirroredCitizens keeps citizens as NewCitizens does, with the
// in-memory copy. db must be exclusive: another writer's changes would
// never reach the copy.
func NewMirroredCitizens(db *mongox.DB, notify mongox.Notifier) *MirroredCitizens {
	copy := citizenMirrorOf(db)
	if copy == nil {
		panic("store.NewMirroredCitizens: the database is shared; use NewCitizens")
	}
	m := &MirroredCitizens{Citizens: NewCitizens(db, notify), copy: copy}
	m.docs.Written = m.written
	return m
}

// written keeps the copy by every mongox.Docs write (the document's lock
// held, so the copy is never behind a write that was answered). A change
// writes every field but presence, which the row keeps.
func (m *MirroredCitizens) written(id string, d *citizenDoc) {
	if d == nil {
		m.copy.Delete(id)
		return
	}
	next := *d
	if old, ok := m.copy.Get(id); ok {
		next.LastSeenAt, next.LastSignedAt = old.Doc.LastSeenAt, old.Doc.LastSignedAt
	}
	m.copy.Put(rowOf(next))
}

// EnsureIndexes creates the indexes and loads the stored citizens into
// memory.
func (m *MirroredCitizens) EnsureIndexes(ctx context.Context) error {
	if err := m.Citizens.EnsureIndexes(ctx); err != nil {
		return err
	}
	return m.load(ctx)
}

// load fills the copy from the stored citizens (one scan, at start; later
// calls return at once).
func (m *MirroredCitizens) load(ctx context.Context) error {
	return m.copy.Load(ctx, func(ctx context.Context) ([]citizenRow, error) {
		docs, err := mongox.ScanAll[citizenDoc](ctx, m.copy.Mirror, m.Collection(), bson.M{mongox.OutboxField: 0})
		if err != nil {
			return nil, err
		}
		rows := make([]citizenRow, len(docs))
		for i, d := range docs {
			rows[i] = rowOf(d)
		}
		return rows, nil
	})
}

// Get reads the citizen from memory.
func (m *MirroredCitizens) Get(ctx context.Context, agentID string) (domain.Citizen, bool, error) {
	if err := m.load(ctx); err != nil {
		return domain.Citizen{}, false, err
	}
	r, ok := m.copy.Get(agentID)
	if !ok {
		return domain.Citizen{}, false, nil
	}
	return r.Doc.citizen(), true, nil
}

// Touch records presence as the MongoDB adapter does and, once the write
// found the living citizen, in the copy, under the same document lock.
// Presence is no mongox.Docs write, so Written never sees it.
func (m *MirroredCitizens) Touch(ctx context.Context, agentID string, seen, signed time.Time) error {
	return m.touch(ctx, agentID, seen, signed, func() {
		m.copy.Change(agentID, func(r *citizenRow) bool {
			r.Doc.LastSeenAt = clock.Stored(seen)
			if !signed.IsZero() {
				r.Doc.LastSignedAt = clock.Stored(signed)
			}
			return true
		})
	})
}

// Pending is the repair at start: from memory, not a scan of every citizen.
func (m *MirroredCitizens) Pending(ctx context.Context, cutoff time.Time) ([]domain.Citizen, error) {
	if err := m.load(ctx); err != nil {
		return nil, err
	}
	return m.copy.pending(clock.Stored(cutoff)), nil
}

// Directory answers the directory from memory.
func (m *MirroredCitizens) Directory(ctx context.Context, q domain.DirectoryQuery) ([]domain.Citizen, int64, error) {
	if err := m.load(ctx); err != nil {
		return nil, 0, err
	}
	out, total := m.copy.directoryPage(q)
	return out, total, nil
}
