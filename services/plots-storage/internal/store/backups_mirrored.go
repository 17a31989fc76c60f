package store

import (
	"context"
	"fmt"
	"time"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// MirroredBackups is the backups adapter of the embedded default, where
// this process is the database's only writer: the MongoDB adapter, whose
// writes of the metadata it keeps in an in-memory copy, answering the
// queries of one owner's backups from memory. On FerretDB v1 a citizen's
// list would decode every backup of the world.
type MirroredBackups struct {
	*Backups
	copy *backupMirror
}

// NewMirroredBackups keeps backups as NewBackups does, with the in-memory
// copy. db must be exclusive: another writer's changes would never reach
// the copy.
func NewMirroredBackups(db *mongox.DB) *MirroredBackups {
	copy := backupMirrorOf(db)
	if copy == nil {
		panic("store.NewMirroredBackups: the database is shared; use NewBackups")
	}
	m := &MirroredBackups{Backups: NewBackups(db), copy: copy}
	// mongox.Docs reports every write while it holds the backup's lock, so
	// the copy is never behind a write that was answered.
	m.meta.Written = func(id string, d *backupDoc) {
		if d == nil {
			copy.Delete(id)
			return
		}
		copy.Put(*d)
	}
	return m
}

// EnsureIndexes creates the indexes and loads the metadata into memory.
func (m *MirroredBackups) EnsureIndexes(ctx context.Context) error {
	if err := m.Backups.EnsureIndexes(ctx); err != nil {
		return err
	}
	return m.load(ctx)
}

// load fills the copy from the stored metadata (one scan, at start; later
// calls return at once).
func (m *MirroredBackups) load(ctx context.Context) error {
	return m.copy.Load(ctx, func(ctx context.Context) ([]backupDoc, error) {
		return mongox.ScanAll[backupDoc](ctx, m.copy.Mirror, m.meta.Collection(), nil)
	})
}

// ofOwner is owner's backups that keep selects, in list order, from memory.
func (m *MirroredBackups) ofOwner(ctx context.Context, owner string, keep func(*backupDoc) bool) ([]backupDoc, error) {
	if err := m.load(ctx); err != nil {
		return nil, err
	}
	return m.copy.ofOwner(owner, keep), nil
}

// usedSlots are the slots of owner's backups in memory.
func (m *MirroredBackups) usedSlots(ctx context.Context, owner string) (map[int]bool, error) {
	docs, err := m.ofOwner(ctx, owner, func(*backupDoc) bool { return true })
	if err != nil {
		return nil, fmt.Errorf("read backup slots: %w", err)
	}
	return slotsOf(docs), nil
}

// Insert reads the slots taken from memory.
func (m *MirroredBackups) Insert(ctx context.Context, b domain.Backup) error {
	return m.insertIn(ctx, b, m.usedSlots)
}

// List walks owner's backups in memory, in the list order.
func (m *MirroredBackups) List(ctx context.Context, owner string, now time.Time) ([]domain.Backup, error) {
	docs, err := m.ofOwner(ctx, owner, unexpired(now))
	if err != nil {
		return nil, fmt.Errorf("list backups: %w", err)
	}
	return backupsOf(docs), nil
}

// PurgeExpired finds owner's expired backups in memory.
func (m *MirroredBackups) PurgeExpired(ctx context.Context, owner string, now time.Time) (int64, error) {
	docs, err := m.ofOwner(ctx, owner, expired(now))
	if err != nil {
		return 0, fmt.Errorf("find expired backups: %w", err)
	}
	return m.deleteEach(ctx, docs)
}

// expired selects the backups expired at now (the MongoDB adapter's query in PurgeExpired).
func expired(now time.Time) func(*backupDoc) bool {
	return func(d *backupDoc) bool { return d.ExpiresAt != nil && !d.ExpiresAt.After(now) }
}

// unexpired selects the backups List shows at now (the MongoDB adapter's query in List).
func unexpired(now time.Time) func(*backupDoc) bool {
	return func(d *backupDoc) bool { return d.ExpiresAt == nil || d.ExpiresAt.After(now) }
}
