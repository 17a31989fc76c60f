package mongox

import (
	"fmt"
	"hash/maphash"
	"sync"

	"go.mongodb.org/mongo-driver/mongo"
)

// Locks serialises writes to one document within this process (see DB.Lock).
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
