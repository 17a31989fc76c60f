package store

import (
	"context"
	"strings"

	"sharedworld.dev/pkg/mongox"
)

// backupMirror is the backups' metadata in memory on an exclusive database
// (the embedded backend, where a citizen's list would decode every backup
// of the world), in the "owner_created" index's order with the list's tie
// break: owner, newest first, then _id.
type backupMirror struct {
	*mongox.Mirror[backupDoc]
	byOwner *mongox.Order[backupDoc]
}

func backupMirrorOf(db *mongox.DB) *backupMirror {
	m := mongox.MirrorOf(db, "backups", func(d *backupDoc) string { return d.ID })
	if m == nil {
		return nil
	}
	return &backupMirror{Mirror: m, byOwner: m.Order("owner_created", func(a, b *backupDoc) int {
		if c := strings.Compare(a.Owner, b.Owner); c != 0 {
			return c
		}
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	}, nil)}
}

func (s *Backups) loadMirror(ctx context.Context) error {
	if s.mirror == nil {
		return nil
	}
	return s.mirror.Load(ctx, func(ctx context.Context) ([]backupDoc, error) {
		return mongox.ScanAll[backupDoc](ctx, s.mirror.Mirror, s.meta.Collection(), nil)
	})
}

func (s *Backups) written(id string, d *backupDoc) {
	if d == nil {
		s.mirror.Delete(id)
		return
	}
	s.mirror.Put(*d)
}

// ofOwner returns owner's backups that keep selects, in list order.
func (m *backupMirror) ofOwner(owner string, keep func(*backupDoc) bool) []backupDoc {
	out := []backupDoc{}
	m.byOwner.Ascend(func(d *backupDoc) bool { return d.Owner >= owner }, func(d *backupDoc) bool {
		if d.Owner != owner {
			return false
		}
		if keep(d) {
			out = append(out, *d)
		}
		return true
	})
	return out
}
