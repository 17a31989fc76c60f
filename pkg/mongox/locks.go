package mongox

import (
	"fmt"
	"sync"

	"go.mongodb.org/mongo-driver/mongo"
)

// Locks serialises writes to one key (a document) within this process (see
// DB.Lock). Each key has a mutex of its own while anyone holds or waits for
// it, so two keys never share one: a caller holding one document's lock may
// take another's without ever waiting on itself.
type Locks struct {
	mu   sync.Mutex
	held map[string]*keyLock
}

type keyLock struct {
	sync.Mutex
	users int // holders and waiters; the entry goes when it drops to zero
}

// NewLocks returns an empty set of locks.
func NewLocks() *Locks { return &Locks{held: map[string]*keyLock{}} }

// Lock locks key and returns its unlock function.
func (l *Locks) Lock(key string) (unlock func()) {
	l.mu.Lock()
	k := l.held[key]
	if k == nil {
		k = &keyLock{}
		l.held[key] = k
	}
	k.users++
	l.mu.Unlock()
	k.Lock()
	return func() {
		k.Unlock()
		l.mu.Lock()
		if k.users--; k.users == 0 {
			delete(l.held, key)
		}
		l.mu.Unlock()
	}
}

// Doc locks the document id of coll and returns its unlock function.
func (l *Locks) Doc(coll *mongo.Collection, id any) (unlock func()) {
	return l.Lock(coll.Database().Name() + "." + coll.Name() + "/" + fmt.Sprint(id))
}
