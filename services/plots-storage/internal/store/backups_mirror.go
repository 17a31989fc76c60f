package store

import (
	"strings"

	"sharedworld.dev/pkg/mongox"
)

// backupMirror is the backups' metadata in memory, MirroredBackups' copy,
// in the "owner_created" index's order with the list's tie
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
