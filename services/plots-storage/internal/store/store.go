// Package store is plots-storage's MongoDB adapter: plots and their
// releases, permissions, usage, plot files with their contents, and
// continuity backups. It decides no rule; it makes the writes the rules
// need safe under concurrency.
//
// Two facts of the embedded FerretDB v1 (SQLite) shape it, both measured:
//   - An update is "read the document, apply in memory, write it all back",
//     without isolation: of 30 updates guarded by {v: 1} two both "won", and
//     concurrent updates of one document lose each other's fields. Inserts
//     refused by a unique index and deletes by _id stay atomic. So races
//     between citizens (one plot per cell, one per citizen, backup slots)
//     are decided by inserts, and every update of a document happens under
//     that document's lock in this process (mongox.Locks, shared with the
//     outbox relay), with the MongoDB filter guard kept for replicas
//     (mongox.Locks.ByID leaves it out where this process is the only
//     writer, because FerretDB scans the collection for any filter that is
//     more than {_id}).
//   - Only _id equality is served quickly (a lookup by _id took 2.6 ms on
//     3000 documents, by another field 55 ms, with a sort 200 ms). So every
//     hot path reads by _id: a file's head document, a tenancy's usage, a
//     blob. Listings scan; they are rarer.
package store

import (
	"errors"

	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/events"
)

// Sentinel outcomes; the app turns them into contract errors.
var (
	ErrNotFound     = errors.New("not found")
	ErrDuplicate    = errors.New("a unique index refused the insert")
	ErrVersionClash = errors.New("changed concurrently")
	ErrNoRoom       = errors.New("the quota does not admit the change")
)

var noOutbox = bson.M{events.OutboxField: 0}
