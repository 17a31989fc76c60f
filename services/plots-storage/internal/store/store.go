// Package store holds plots-storage's adapters of the app's repositories:
// plots and their releases, permissions, usage, plot files with their
// contents, and continuity backups. Each store has its MongoDB adapter
// (Plots, Usage, Files, Backups: production queries only) and a mirrored
// one beside it (MirroredPlots, ...), which embeds it for the embedded
// default, where this process is the database's only writer, and answers
// the reads FerretDB serves slowly from memory; the service picks one per
// store. Permissions are read by _id alone and have one.
//
// It decides no rule; every change of a record goes through mongox.Docs
// (the document's lock in this process, its version on a shared database,
// its events in the same write), by way of change below.
//
// Two facts of the embedded FerretDB v1 (SQLite) shape it, both measured:
//   - An update is "read the document, apply in memory, write it all back",
//     without isolation; inserts refused by a unique index and deletes by
//     _id stay atomic. So races between citizens for something new (one
//     plot per citizen, backup slots, a cell's first claim) are decided by
//     inserts, and updates by mongox.Docs.
//   - Only _id equality is served quickly (a lookup by _id took 2.6 ms on
//     3000 documents, by another field 55 ms, with a sort 200 ms). So every
//     hot path reads by _id: a file's head document, a tenancy's usage, a
//     blob. Listings scan, on MongoDB adapters; the mirrored ones answer
//     them from memory.
//
// No method holds one document's lock while taking another's: the locks
// are striped, so nesting them could deadlock.
package store

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/plots-storage/internal/domain"
	"sharedworld.dev/services/plots-storage/internal/messages"
)

var noOutbox = bson.M{events.OutboxField: 0}

// headFields are a file head's fields without its outbox and its content:
// what listings and the copies in memory hold.
var headFields = bson.M{events.OutboxField: 0, "content": 0}

// eventOf is an outbox entry.
type eventOf = events.Event

// docs are the documents of one collection with their outbox.
type docs[D any] = mongox.Docs[D, eventOf]

// createAttempts bounds how often change goes back from a refused insert
// (another writer created the document first) to an update.
const createAttempts = 5

// change is the one way this store changes a record: the domain function
// fn runs on the stored record (or, when there is none yet, on fresh(), and
// the result is inserted), and the events it returns go into the
// document's outbox in the same write. Like mongox.Docs.Update, fn may run
// more than once and must depend on the record alone.
//
// Outcomes come back as the domain's: domain.ErrNotFound never (a missing
// record is created), domain.ErrBusy when the record kept changing under
// every attempt, mongox.ErrDuplicate when a unique index other than _id
// refused the result (for the caller to name).
func change[D, R any](ctx context.Context, d *docs[D], id string, fresh func() R,
	to func(R) D, from func(D) R, fn func(*R) ([]domain.Event, error)) (R, error) {
	apply := func(rec *R) ([]events.Event, error) {
		evs, err := fn(rec)
		if err != nil {
			return nil, err
		}
		return messages.Outbox(evs)
	}
	var zero R
	for range createAttempts {
		doc, err := d.Update(ctx, id, func(doc *D) ([]events.Event, error) {
			rec := from(*doc)
			evs, err := apply(&rec)
			*doc = to(rec)
			return evs, err
		})
		if err == nil {
			return from(doc), nil
		}
		if !errors.Is(err, mongox.ErrNotFound) {
			return zero, outcome(err)
		}
		rec := fresh()
		evs, err := apply(&rec)
		if err != nil {
			return zero, err
		}
		doc, err = d.Insert(ctx, id, to(rec), evs...)
		if err == nil {
			return from(doc), nil
		}
		if !errors.Is(err, mongox.ErrDuplicate) {
			return zero, err
		}
		if _, gerr := d.Get(ctx, id); errors.Is(gerr, mongox.ErrNotFound) {
			return zero, err // another unique index refused it
		}
		// Another writer created it first: change what it wrote.
	}
	return zero, fmt.Errorf("change %s/%s: %w", d.Collection().Name(), id, domain.ErrBusy)
}

// outcome turns mongox's sentinels into the domain's.
func outcome(err error) error {
	switch {
	case errors.Is(err, mongox.ErrNotFound):
		return domain.ErrNotFound
	case errors.Is(err, mongox.ErrVersionClash):
		return fmt.Errorf("%w: %w", domain.ErrBusy, err)
	}
	return err
}
