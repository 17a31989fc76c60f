package mongox

import (
	"hash/maphash"
	"sync"
)

// Locks serialises read-modify-write sequences on one key within this
// process. MongoDB applies a filtered update atomically, but FerretDB v1
// (the embedded default) evaluates the filter and writes the result in two
// steps, so two concurrent conditional updates of one document can both
// succeed there. Taking the key's lock around such an update makes the
// embedded world correct; across replicas the MongoDB filter guard holds.
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
