package store

import (
	"context"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// MirroredPlots is the plots adapter of the embedded default, where this
// process is the database's only writer: the MongoDB adapter, whose writes
// it keeps in an in-memory copy, answering every read from memory. FerretDB
// v1 decodes every plot for any filter but _id; here the grid and the
// owners cost what they cost on MongoDB's indexes.
type MirroredPlots struct {
	*Plots
	copy *plotMirror
}

// NewMirroredPlots keeps plots as NewPlots does, with the in-memory copy.
// db must be exclusive: another writer's changes would never reach the copy.
func NewMirroredPlots(db *mongox.DB, notify mongox.Notifier) *MirroredPlots {
	copy := plotMirrorOf(db)
	if copy == nil {
		panic("store.NewMirroredPlots: the database is shared; use NewPlots")
	}
	m := &MirroredPlots{Plots: NewPlots(db, notify), copy: copy}
	// mongox.Docs reports every write while it holds the plot's lock, so
	// the copy is never behind a write that was answered.
	m.docs.Written = func(id string, d *plotDoc) {
		if d == nil {
			copy.Delete(id)
			return
		}
		copy.Put(*d)
	}
	return m
}

// EnsureIndexes creates the indexes and loads the plots into memory.
func (m *MirroredPlots) EnsureIndexes(ctx context.Context) error {
	if err := m.Plots.EnsureIndexes(ctx); err != nil {
		return err
	}
	return m.load(ctx)
}

// load fills the copy from the stored plots (one scan, at start; later
// calls return at once).
func (m *MirroredPlots) load(ctx context.Context) error {
	return m.copy.Load(ctx, func(ctx context.Context) ([]plotDoc, error) {
		return mongox.ScanAll[plotDoc](ctx, m.copy.Mirror, m.docs.Collection(), noOutbox)
	})
}

// Get reads the claimed plot from memory.
func (m *MirroredPlots) Get(ctx context.Context, plotID string) (domain.Plot, error) {
	if err := m.load(ctx); err != nil {
		return domain.Plot{}, err
	}
	d, ok := m.copy.Get(plotID)
	if !ok || !d.Claimed {
		return domain.Plot{}, domain.ErrNotFound
	}
	return d.plot(), nil
}

// OwnedBy looks the owner up in the copy's order of owners.
func (m *MirroredPlots) OwnedBy(ctx context.Context, agentID string) (domain.Plot, error) {
	if err := m.load(ctx); err != nil {
		return domain.Plot{}, err
	}
	d, ok := m.copy.ownedBy(agentID)
	if !ok {
		return domain.Plot{}, domain.ErrNotFound
	}
	return d.plot(), nil
}

// ClaimedIn walks the square's columns of the copy's grid.
func (m *MirroredPlots) ClaimedIn(ctx context.Context, sq domain.Square) ([]domain.Coordinates, error) {
	if err := m.load(ctx); err != nil {
		return nil, err
	}
	return m.copy.claimedIn(sq), nil
}

// NearestFree walks the copy's quadtree of free cells.
func (m *MirroredPlots) NearestFree(ctx context.Context, near domain.Coordinates, limit int) ([]domain.Coordinates, error) {
	if err := m.load(ctx); err != nil {
		return nil, err
	}
	return m.copy.nearestFree(near, limit), nil
}

// CountClaimed is the length of the copy's grid.
func (m *MirroredPlots) CountClaimed(ctx context.Context) (int64, error) {
	if err := m.load(ctx); err != nil {
		return 0, err
	}
	return int64(m.copy.grid.Len()), nil
}

// ListClaimed pages through the copy's grid.
func (m *MirroredPlots) ListClaimed(ctx context.Context, after *domain.Coordinates, limit int) ([]domain.Plot, error) {
	if err := m.load(ctx); err != nil {
		return nil, err
	}
	return m.copy.listClaimed(after, limit), nil
}

// Tenancies are those of the copy's claimed cells.
func (m *MirroredPlots) Tenancies(ctx context.Context) (map[string]bool, error) {
	if err := m.load(ctx); err != nil {
		return nil, err
	}
	return m.copy.tenancies(), nil
}
