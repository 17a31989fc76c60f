package mongox

import (
	"fmt"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/mongo"
)

// Locks serialises writes to one key (a document) within this process (see
// DB.Lock). Each key has a mutex of its own while anyone holds or waits for
// it, so two keys never share one: a caller holding one document's lock may
// take another's without ever waiting on itself.
type Locks struct {
	// gate is held shared by every lock holder, and exclusively for good
	// once freeze succeeds: no write goes on after a snapshot was taken.
	gate sync.RWMutex
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
	l.gate.RLock()
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
		l.gate.RUnlock()
	}
}

// freeze waits until no lock is held (at most until deadline) and then
// lets no one take one again; false when some holder stayed. It never
// blocks new holders while it waits (TryLock), so a holder taking a second
// lock cannot deadlock with it.
func (l *Locks) freeze(deadline time.Time) bool {
	for !l.gate.TryLock() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(time.Millisecond)
	}
	return true
}

// Doc locks the document id of coll and returns its unlock function.
func (l *Locks) Doc(coll *mongo.Collection, id any) (unlock func()) {
	return l.Lock(coll.Database().Name() + "." + coll.Name() + "/" + fmt.Sprint(id))
}
