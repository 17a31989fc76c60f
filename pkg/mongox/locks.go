package mongox

import (
	"fmt"
	"hash/maphash"
	"sync"

	"go.mongodb.org/mongo-driver/bson"
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
	seed      maphash.Seed
	stripes   [256]sync.Mutex
	exclusive bool
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

// Exclusive declares that this process is the only writer of its databases
// (the embedded default: one process, one FerretDB). Callers then hold the
// document lock across every read-modify-write, so ByID can leave the guard
// out of the filter: FerretDB serves only an exact {_id} filter from an
// index and scans the whole collection for anything more.
func (l *Locks) Exclusive() *Locks {
	l.exclusive = true
	return l
}

// ByID is the filter of a guarded single-document write: the _id plus the
// guard (a version, a status) that keeps concurrent replicas honest on
// MongoDB. Call it while holding the document's lock.
func (l *Locks) ByID(id string, guard bson.M) bson.M {
	f := bson.M{"_id": id}
	if l != nil && l.exclusive {
		return f
	}
	for k, v := range guard {
		f[k] = v
	}
	return f
}

// IsExclusive reports whether this process is the only writer (see Exclusive):
// a service may then keep an in-memory index of what it wrote.
func (l *Locks) IsExclusive() bool { return l != nil && l.exclusive }
