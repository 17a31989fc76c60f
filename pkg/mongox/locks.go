package mongox

import (
	"fmt"
	"hash/maphash"
	"sync"

	"go.mongodb.org/mongo-driver/mongo"
)

// Locks serialises writes to one document within this process. MongoDB
// applies every update atomically and field by field, but FerretDB v1 (the
// embedded default) reads the document, applies the update in memory and
// writes the whole document back: two concurrent updates of one document
// can both pass their filter, and the later write silently drops the
// earlier one's fields. Every writer of a document in one process (handlers,
// the outbox relay, presence) takes the document's lock, which makes the
// embedded world correct; across replicas on MongoDB the filter guards hold.
type Locks struct {
	seed    maphash.Seed
	stripes [256]sync.Mutex
}

// NewLocks returns a set of striped locks.
func NewLocks() *Locks { return &Locks{seed: maphash.MakeSeed()} }

// Lock locks key and returns its unlock function.
func (l *Locks) Lock(key string) (unlock func()) {
	m := &l.stripes[maphash.String(l.seed, key)%uint64(len(l.stripes))]
	m.Lock()
	return m.Unlock
}

// Doc locks the document id of coll and returns its unlock function.
func (l *Locks) Doc(coll *mongo.Collection, id any) (unlock func()) {
	return l.Lock(coll.Database().Name() + "." + coll.Name() + "/" + fmt.Sprint(id))
}
