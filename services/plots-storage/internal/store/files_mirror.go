package store

import (
	"context"
	"strings"

	"sharedworld.dev/pkg/mongox"
)

// fileMirror is one collection of file heads in memory on an exclusive
// database (the embedded backend, where listing one plot's files would
// decode every file of the world), in the "plot_tenancy_path" index's order.
type fileMirror struct {
	*mongox.Mirror[fileDoc]
	byPath *mongox.Order[fileDoc]
}

func fileMirrorOf(db *mongox.DB, coll string) *fileMirror {
	m := mongox.MirrorOf(db, coll, func(d *fileDoc) string { return d.ID })
	if m == nil {
		return nil
	}
	return &fileMirror{Mirror: m, byPath: m.Order("plot_tenancy_path", func(a, b *fileDoc) int {
		for _, c := range [...]int{strings.Compare(a.PlotID, b.PlotID), strings.Compare(a.Tenancy, b.Tenancy), strings.Compare(a.Path, b.Path)} {
			if c != 0 {
				return c
			}
		}
		return strings.Compare(a.ID, b.ID)
	}, nil)}
}

// keep makes d's Docs report its writes to m.
func (m *fileMirror) keep(d *docs[fileDoc]) {
	d.Written = func(id string, f *fileDoc) {
		if f == nil {
			m.Delete(id)
			return
		}
		m.Put(*f)
	}
}

func (m *fileMirror) load(ctx context.Context, d *docs[fileDoc]) error {
	return m.Load(ctx, func(ctx context.Context) ([]fileDoc, error) {
		return mongox.ScanAll[fileDoc](ctx, m.Mirror, d.Collection(), noOutbox)
	})
}

// list is List's query: a tenancy's files with paths in [from, to), by
// path, without removed garden files.
func (m *fileMirror) list(plotID, tenancy, from, to string) []fileDoc {
	out := []fileDoc{}
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
		if !d.Removed {
			out = append(out, *d)
		}
		return true
	})
	return out
}
