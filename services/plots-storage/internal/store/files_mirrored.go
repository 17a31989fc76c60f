package store

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// MirroredFiles is the files adapter of the embedded default, where this
// process is the database's only writer: the MongoDB adapter, whose writes
// it keeps in in-memory copies of the file heads (files_mirror.go) and of
// the blobs' references (blobs_mirror.go), answering listings, their
// version and the repair's reads from memory. On FerretDB v1 listing one
// plot's files would decode every file of the world.
type MirroredFiles struct {
	*Files
	// filesCopy and gardenCopy are the copies of files and garden_files.
	filesCopy, gardenCopy *fileMirror
	blobRefs              *blobRefs
	// drops removes the contents given up, a batch at a time, while the
	// write that gave one up is answered.
	drops *mongox.BatchedDeletes
}

// NewMirroredFiles keeps files as NewFiles does, with the in-memory copies.
// db must be exclusive: another writer's changes would never reach them.
func NewMirroredFiles(db *mongox.DB, notify mongox.Notifier) *MirroredFiles {
	filesCopy, gardenCopy := fileMirrorOf(db, "files"), fileMirrorOf(db, "garden_files")
	if filesCopy == nil {
		panic("store.NewMirroredFiles: the database is shared; use NewFiles")
	}
	m := &MirroredFiles{Files: NewFiles(db, notify), filesCopy: filesCopy, gardenCopy: gardenCopy, blobRefs: blobRefsOf(db)}
	m.drops = mongox.NewBatchedDeletes(m.blobs, mongox.QueueLinger, func(ids []string, err error) {
		// The contents stay stored, unlisted; their tenancy's end removes them.
		slog.Default().Warn("could not delete unused file contents", slog.Int("contents", len(ids)), slog.String("error", err.Error()))
	})
	filesCopy.keep(m.files)
	gardenCopy.keep(m.garden)
	return m
}

// copyOf is the in-memory copy of plotID's file heads.
func (m *MirroredFiles) copyOf(plotID string) *fileMirror {
	if plotID == domain.CommonsPlotID {
		return m.gardenCopy
	}
	return m.filesCopy
}

// EnsureIndexes creates the indexes and loads the copies.
func (m *MirroredFiles) EnsureIndexes(ctx context.Context) error {
	if err := m.Files.EnsureIndexes(ctx); err != nil {
		return err
	}
	if err := m.filesCopy.load(ctx, m.files); err != nil {
		return err
	}
	if err := m.gardenCopy.load(ctx, m.garden); err != nil {
		return err
	}
	return m.blobRefs.load(ctx, m.blobs)
}

// List walks the copy in path order.
func (m *MirroredFiles) List(ctx context.Context, plotID, tenancy, prefix string) ([]domain.File, error) {
	copy := m.copyOf(plotID)
	if err := copy.load(ctx, m.docs(plotID)); err != nil {
		return nil, err
	}
	_, to := listFilter(plotID, tenancy, prefix)
	rows, _ := copy.page(plotID, tenancy, prefix, to, "", 0)
	return filesOf(rows), nil
}

// ListPage walks the copy in path order, counting as it goes.
func (m *MirroredFiles) ListPage(ctx context.Context, plotID, tenancy, prefix, after string, limit int) ([]domain.File, int, error) {
	copy := m.copyOf(plotID)
	if err := copy.load(ctx, m.docs(plotID)); err != nil {
		return nil, 0, err
	}
	_, to := listFilter(plotID, tenancy, prefix)
	rows, total := copy.page(plotID, tenancy, prefix, to, after, limit)
	return filesOf(rows), total, nil
}

// ListVersion is the count of the changes of plotID's files this process
// made: as the only writer it sees every one.
func (m *MirroredFiles) ListVersion(ctx context.Context, plotID string) (version uint64, ok bool, err error) {
	copy := m.copyOf(plotID)
	if err := copy.load(ctx, m.docs(plotID)); err != nil {
		return 0, false, err
	}
	return copy.version(plotID), true, nil
}

// PutBlob stores content and then its reference.
func (m *MirroredFiles) PutBlob(ctx context.Context, tenancy string, data []byte, now time.Time) (string, error) {
	id, err := m.Files.PutBlob(ctx, tenancy, data, now)
	if err != nil {
		return "", err
	}
	m.blobRefs.Put(blobRef{ID: id, Tenancy: tenancy, Created: clock.Stored(now)})
	return id, nil
}

// DeleteBlob takes the reference out before the content goes, and queues
// the content's removal: no head points to it, so nobody reads it, and a
// batch of removals is one command. Past the queue's bound it removes the
// content itself, putting the reference back if that fails.
func (m *MirroredFiles) DeleteBlob(ctx context.Context, id string) error {
	if id == "" {
		return nil
	}
	taken := m.blobRefs.take(id)
	if m.drops.Queue(id) {
		return nil
	}
	if err := m.Files.DeleteBlob(ctx, id); err != nil {
		m.blobRefs.restore(taken)
		return err
	}
	return nil
}

// FlushDeletes removes the contents queued for removal.
func (m *MirroredFiles) FlushDeletes(ctx context.Context) { m.drops.Flush(ctx) }

// DeleteTenancy deletes as the MongoDB adapter does, keeping the copies:
// the deletes of many documents at once pass no document's lock, so no
// write reports them.
func (m *MirroredFiles) DeleteTenancy(ctx context.Context, plotID, tenancy string) error {
	if err := m.deleteHeadsOf(ctx, plotID, tenancy); err != nil {
		return err
	}
	m.copyOf(plotID).deleteWhere(func(d *fileDoc) bool { return d.PlotID == plotID && d.Tenancy == tenancy })
	taken := m.blobRefs.takeWhere(func(r *blobRef) bool { return r.Tenancy == tenancy })
	if err := m.deleteContentsOf(ctx, plotID, tenancy); err != nil {
		m.blobRefs.restore(taken)
		return err
	}
	return nil
}

// DeleteOrphans finds the tenancies holding files and contents in memory
// (the blobs' copy may name a few more) and deletes as the MongoDB adapter
// does, keeping the copies.
func (m *MirroredFiles) DeleteOrphans(ctx context.Context, live map[string]bool, cutoff time.Time) (int64, error) {
	orphan := func(tenancy string, at time.Time) bool { return !live[tenancy] && at.Before(clock.Stored(cutoff)) }
	heads, err := m.headTenancies(ctx)
	if err != nil {
		return 0, fmt.Errorf("find tenancies in %s: %w", m.files.Collection().Name(), err)
	}
	removed, err := m.orphanHeads().deleteDead(ctx, heads, live, cutoff)
	if err != nil {
		return removed, err
	}
	m.filesCopy.deleteWhere(func(d *fileDoc) bool { return orphan(d.Tenancy, d.WrittenAt) })
	contents, err := m.blobTenancies(ctx)
	if err != nil {
		return removed, fmt.Errorf("find tenancies in %s: %w", m.blobs.Name(), err)
	}
	taken := m.blobRefs.takeWhere(func(r *blobRef) bool { return orphan(r.Tenancy, r.Created) })
	n, err := m.orphanContents().deleteDead(ctx, contents, live, cutoff)
	removed += n
	if err != nil {
		m.blobRefs.restore(taken)
	}
	return removed, err
}

// headTenancies are the tenancies holding plot files (the garden's are
// never orphans).
func (m *MirroredFiles) headTenancies(ctx context.Context) ([]string, error) {
	if err := m.filesCopy.load(ctx, m.files); err != nil {
		return nil, err
	}
	return slices.Sorted(maps.Keys(m.filesCopy.tenancies())), nil
}

// blobTenancies are the tenancies some blob may hold content of.
func (m *MirroredFiles) blobTenancies(ctx context.Context) ([]string, error) {
	if err := m.blobRefs.load(ctx, m.blobs); err != nil {
		return nil, err
	}
	return slices.Sorted(maps.Keys(m.blobRefs.tenancies())), nil
}
