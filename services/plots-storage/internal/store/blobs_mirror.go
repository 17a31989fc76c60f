package store

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"

	"sharedworld.dev/pkg/mongox"
)

// blobRef is what the start-up repair needs of a blob: its tenancy and
// when it was written, not its content.
type blobRef struct {
	ID      string    `bson:"_id"`
	Tenancy string    `bson:"tenancy"`
	Created time.Time `bson:"created_at"`
}

// blobRefs are the blobs' references in memory, MirroredFiles' copy, so
// that the repair at start finds the tenancies holding content without
// reading every blob (on FerretDB a distinct decodes each one, content and
// all) when the snapshot of a clean stop holds them. Blobs are written without a document lock, so the copy is
// kept a superset of the collection instead of equal: a blob is put after
// its insert and taken out before its delete (and put back if the delete
// fails). A reference to a blob that is gone costs the repair one delete
// that finds nothing.
type blobRefs struct{ *mongox.Mirror[blobRef] }

func blobRefsOf(db *mongox.DB) *blobRefs {
	m := mongox.MirrorOf(db, "blobs", func(r *blobRef) string { return r.ID })
	if m == nil {
		return nil
	}
	return &blobRefs{m}
}

func (b *blobRefs) load(ctx context.Context, blobs *mongo.Collection) error {
	return b.Load(ctx, func(ctx context.Context) ([]blobRef, error) {
		return mongox.ScanAll[blobRef](ctx, b.Mirror, blobs, bson.M{"tenancy": 1, "created_at": 1})
	})
}

// take removes the reference of blob id and returns it, to put back if
// the delete it stands for fails.
func (b *blobRefs) take(id string) []blobRef {
	r, ok := b.Get(id)
	if !ok {
		return nil
	}
	taken := []blobRef{*r}
	b.Delete(id)
	return taken
}

// takeWhere removes the references match selects and returns them, as
// take does.
func (b *blobRefs) takeWhere(match func(*blobRef) bool) []blobRef {
	var taken []blobRef
	b.Scan(func(r *blobRef) bool {
		if match(r) {
			taken = append(taken, *r)
		}
		return true
	})
	for _, r := range taken {
		b.Delete(r.ID)
	}
	return taken
}

// restore puts taken references back.
func (b *blobRefs) restore(refs []blobRef) {
	for _, r := range refs {
		b.Put(r)
	}
}

// tenancies are the tenancies some blob may hold content of.
func (b *blobRefs) tenancies() map[string]bool {
	out := map[string]bool{}
	b.Scan(func(r *blobRef) bool {
		out[r.Tenancy] = true
		return true
	})
	return out
}

// tenancies are the tenancies holding file heads in m.
func (m *fileMirror) tenancies() map[string]bool {
	out := map[string]bool{}
	m.Scan(func(d *fileDoc) bool {
		out[d.Tenancy] = true
		return true
	})
	return out
}
