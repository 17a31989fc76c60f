package store

import (
	"context"
	"strings"
	"sync"

	"sharedworld.dev/pkg/mongox"
)

// fileMirror is one collection of file heads in memory, a copy of
// MirroredFiles, in the "plot_tenancy_path" index's order.
type fileMirror struct {
	*mongox.Mirror[fileDoc]
	byPath *mongox.Order[fileDoc]
	// versions count the changes of each plot's files this process made
	// (plots never changed are at 0): a list read at one version is the
	// list until the next change, so its encoded answer can be kept.
	mu       sync.Mutex
	versions map[string]uint64
}

// fileMirrors holds one fileMirror per copy: every MirroredFiles of a
// database shares its copies (mongox.MirrorOf), so they must share the versions
// too, or a write through one would leave another's kept lists stale.
var fileMirrors sync.Map // *mongox.Mirror[fileDoc] → *fileMirror

func fileMirrorOf(db *mongox.DB, coll string) *fileMirror {
	m := mongox.MirrorOf(db, coll, func(d *fileDoc) string { return d.ID })
	if m == nil {
		return nil
	}
	if fm, ok := fileMirrors.Load(m); ok {
		return fm.(*fileMirror)
	}
	fm, _ := fileMirrors.LoadOrStore(m, newFileMirror(m))
	return fm.(*fileMirror)
}

func newFileMirror(m *mongox.Mirror[fileDoc]) *fileMirror {
	return &fileMirror{Mirror: m, versions: map[string]uint64{}, byPath: m.Order("plot_tenancy_path", func(a, b *fileDoc) int {
		for _, c := range [...]int{strings.Compare(a.PlotID, b.PlotID), strings.Compare(a.Tenancy, b.Tenancy), strings.Compare(a.Path, b.Path)} {
			if c != 0 {
				return c
			}
		}
		return strings.Compare(a.ID, b.ID)
	}, nil)}
}

// keep makes d's Docs report its writes to m. The plot's version moves
// after the copy changed: a reader that saw the old version may have
// listed the new rows (its answer is dropped at the next read), but one
// that saw the new version never lists the old.
func (m *fileMirror) keep(d *docs[fileDoc]) {
	// A change reads the head from the copy, not the database.
	d.Cache = mongox.MirrorCache(m.Mirror, func(f *fileDoc) int64 { return int64(f.Version) })
	d.Written = func(id string, f *fileDoc) {
		if f == nil {
			m.Delete(id)
		} else {
			head := *f
			head.Content = nil // the copy holds heads; Content reads a content
			m.Put(head)
		}
		plotID, _, _ := strings.Cut(id, ":")
		m.changed(plotID)
	}
}

// deleteWhere is DeleteWhere moving the version of every plot it touched.
func (m *fileMirror) deleteWhere(match func(*fileDoc) bool) {
	touched := map[string]bool{}
	m.DeleteWhere(func(d *fileDoc) bool {
		if !match(d) {
			return false
		}
		touched[d.PlotID] = true
		return true
	})
	for plotID := range touched {
		m.changed(plotID)
	}
}

func (m *fileMirror) changed(plotID string) {
	m.mu.Lock()
	m.versions[plotID]++
	m.mu.Unlock()
}

// version is plotID's change count; read it before listing.
func (m *fileMirror) version(plotID string) uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.versions[plotID]
}

func (m *fileMirror) load(ctx context.Context, d *docs[fileDoc]) error {
	return m.Load(ctx, func(ctx context.Context) ([]fileDoc, error) {
		return mongox.ScanAll[fileDoc](ctx, m.Mirror, d.Collection(), headFields)
	})
}

// page is the query of List and ListPage: a tenancy's files with paths in
// [from, to), by path, without removed garden files, at most limit (0:
// all) of them whose paths sort after after, and how many there are in
// all. The rows are the copy's own (never changed, only replaced):
// pointers, since the whole garden's 10,000 rows copied while growing the
// slice cost more than encoding them.
func (m *fileMirror) page(plotID, tenancy, from, to, after string, limit int) (rows []*fileDoc, total int) {
	m.byPath.Ascend(func(d *fileDoc) bool {
		if d.PlotID != plotID {
			return d.PlotID > plotID
		}
		if d.Tenancy != tenancy {
			return d.Tenancy > tenancy
		}
		return d.Path >= from
	}, func(d *fileDoc) bool {
		if d.PlotID != plotID || d.Tenancy != tenancy || (to != "" && d.Path >= to) {
			return false
		}
		if d.Removed {
			return true
		}
		total++
		if d.Path > after && (limit == 0 || len(rows) < limit) {
			rows = append(rows, d)
		}
		return true
	})
	return rows, total
}
