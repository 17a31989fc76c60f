package mongox

import (
	"sync"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
)

// Mode says who else writes a database, which decides how a write is guarded.
type Mode int

const (
	// Shared: other processes (replicas on MongoDB) may write the same
	// documents, so every read-modify-write is guarded by the document's
	// version in its filter and retried on a clash.
	Shared Mode = iota
	// Exclusive: this process is the database's only writer (the embedded
	// default: one process, one FerretDB). The per-document lock this process
	// holds is the guard, so filters stay exact {_id} lookups, the one filter
	// FerretDB v1 serves from an index, and a service may keep in-memory
	// indexes of what it wrote.
	Exclusive
)

// String names the mode as SHAREDWORLD_TEST_BACKEND and the logs do.
func (m Mode) String() string {
	if m == Exclusive {
		return "exclusive"
	}
	return "shared"
}

// DB is a service's own database together with how it is written: the one
// place the backend mode lives. Every writer of a document in this process
// (stores, the outbox relay, projections) goes through the same DB, so they
// share its document locks.
type DB struct {
	*mongo.Database
	mode  Mode
	locks *Locks
	// mirrors are the in-memory copies of collections (MirrorOf), by name.
	mirrors sync.Map
	// snap is the snapshot of the mirrors left by the last clean stop.
	snap snapshots
	// outboxes are the relays that publish the database's outboxes.
	outboxes outboxes
	// background runs the Mirrors' scans side by side at start (loads.go).
	background background
	// scanner reads whole collections without the server (scan.go).
	scanner Scanner
}

// NewDB wraps db for a process that writes it in mode.
func NewDB(db *mongo.Database, mode Mode) *DB {
	return &DB{Database: db, mode: mode, locks: NewLocks()}
}

// Mode is how this database is written.
func (d *DB) Mode() Mode { return d.mode }

// Exclusive reports whether this process is the database's only writer: a
// service may then keep an in-memory index of what it wrote.
func (d *DB) Exclusive() bool { return d.mode == Exclusive }

// Lock takes the lock of document id of coll in this process and returns its
// unlock function. FerretDB v1 applies an update by reading the document and
// writing it back whole, so two concurrent updates of one document can both
// pass their filter and the later one drops the earlier one's fields; every
// writer of a document in this process therefore holds its lock.
func (d *DB) Lock(coll *mongo.Collection, id any) (unlock func()) {
	return d.locks.Doc(coll, id)
}

// LockKey takes a lock by a name of the caller's choosing (a sequence, a
// counter) and returns its unlock function.
func (d *DB) LockKey(key string) (unlock func()) {
	return d.locks.Lock(d.Name() + "#" + key)
}

// Guarded is the filter of a guarded single-document write, for callers
// that hold the document's lock: the _id plus the guard (a version, a
// status) that keeps replicas honest on a shared database; on an exclusive
// one the held lock is the guard and the filter stays an exact _id lookup.
func (d *DB) Guarded(id any, guard bson.M) bson.M {
	f := bson.M{"_id": id}
	if d.mode == Exclusive {
		return f
	}
	for k, v := range guard {
		f[k] = v
	}
	return f
}
