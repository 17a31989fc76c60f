package mongox

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// OutboxField is the array field in which a document carries the events its
// writes caused but the relay has not yet published. Because the events live
// inside the document, state and events are committed by one single-document
// write: no multi-document transaction needed.
const OutboxField = "_outbox"

// VersionField is the document's version, raised by one on every change; on
// a shared database it is the guard of every read-modify-write.
const VersionField = "version"

// Notifier is told which document a write left events in, so the relay
// publishes them at once by _id instead of waiting for a sweep.
type Notifier interface {
	Notify(coll *mongo.Collection, id string)
}

// Doubter is a Notifier that is also told of a write that failed without a
// definite answer from the database (a timeout, a broken connection): the
// write, with its events, may have been stored after all, and no Notify
// names it.
type Doubter interface {
	Doubt(coll *mongo.Collection)
}

// NopNotifier ignores notifications; the relay's sweeps still publish.
type NopNotifier struct{}

// Notify does nothing.
func (NopNotifier) Notify(*mongo.Collection, string) {}

var (
	// ErrNotFound: no document has the id.
	ErrNotFound = errors.New("document not found")
	// ErrDuplicate: a unique index other than _id refused the document (or,
	// for Insert with a caller's id, the _id is taken).
	ErrDuplicate = errors.New("duplicate key")
	// ErrVersionClash: other writers changed the document every time it was
	// read, up to the retry limit.
	ErrVersionClash = errors.New("document changed concurrently")
	// ErrNoChange, returned by a change function, ends Update without a
	// write; Update then returns the document as read and no error.
	ErrNoChange = errors.New("no change")
)

// maxAttempts bounds Update's retries on version clashes.
const maxAttempts = 10

// idAttempts bounds Create's redraws of colliding random ids.
const idAttempts = 8

// Docs is the one way a service stores an aggregate: documents of type T
// with a string _id, a version and an outbox of events of type E.
//
// T is a plain struct with bson tags; its version field, if it has one, is
// tagged "version" and is filled in by Docs (whatever T holds there is
// ignored on write). E is the outbox entry (events.Event).
type Docs[T, E any] struct {
	db     *DB
	coll   *mongo.Collection
	notify Notifier
	// BeforeWrite, when set, runs between a change's read and its write
	// (with the document's lock held): tests use it to play another replica
	// that writes first.
	BeforeWrite func(ctx context.Context, id string)
	// Written, when set, is told every successful write of a document while
	// its lock is still held (doc nil: deleted), so writes of one document
	// reach it in their order: a store keeps its Mirror by it.
	Written func(id string, doc *T)
	// Cache, when set, answers the reads of Get, Update and Delete from
	// memory (MirrorCache: the Mirror Written keeps, on an exclusive
	// database), saving a read of the database per change; ok false sends
	// the read to the database. The document it returns is the change's to
	// modify, so it must share nothing a change could alter with what the
	// cache holds. After a write that failed (and so reached no Written),
	// the document is read from the database until a write of it lands.
	Cache func(id string) (doc T, version int64, found, ok bool)

	unsure sync.Map // ids whose last write failed
}

// NewDocs stores T in collection name of db and tells notify about every
// write that leaves events (nil: nobody; the relay's sweeps still find them).
func NewDocs[T, E any](db *DB, name string, notify Notifier) *Docs[T, E] {
	if notify == nil {
		notify = NopNotifier{}
	}
	return &Docs[T, E]{db: db, coll: db.Collection(name), notify: notify}
}

// Collection is the underlying collection (for indexes, queries and the relay).
func (s *Docs[T, E]) Collection() *mongo.Collection { return s.coll }

// DB is the database handle the documents live in.
func (s *Docs[T, E]) DB() *DB { return s.db }

// Get reads one document without its outbox.
func (s *Docs[T, E]) Get(ctx context.Context, id string) (T, error) {
	doc, _, err := s.read(ctx, id)
	return doc, err
}

// Create inserts build(id) at version 1 with its events under a fresh
// prefix_xxxxxxxx id, redrawing the id when it collides. Another unique
// index refusing the document is ErrDuplicate.
func (s *Docs[T, E]) Create(ctx context.Context, prefix string, build func(id string) (T, []E, error)) (T, error) {
	var zero T
	for attempt := 0; attempt < idAttempts; attempt++ {
		id := NewID(prefix)
		doc, evs, err := build(id)
		if err != nil {
			return zero, err
		}
		out, err := s.insert(ctx, id, doc, evs)
		if !errors.Is(err, ErrDuplicate) {
			return out, err
		}
		taken, ferr := s.exists(ctx, id)
		if ferr != nil {
			return zero, ferr
		}
		if !taken {
			return zero, err // another unique index refused it
		}
	}
	return zero, fmt.Errorf("insert into %s: no free %s id after %d attempts", s.coll.Name(), prefix, idAttempts)
}

// Insert stores doc under the caller's id (a natural key) at version 1 with
// its events; ErrDuplicate when the id or another unique key is taken.
func (s *Docs[T, E]) Insert(ctx context.Context, id string, doc T, evs ...E) (T, error) {
	return s.insert(ctx, id, doc, evs)
}

func (s *Docs[T, E]) insert(ctx context.Context, id string, doc T, evs []E) (T, error) {
	var zero T
	if s.Written != nil {
		// an Update of the new document must not report before the insert
		defer s.db.Lock(s.coll, id)()
	}
	fields, err := fieldsOf(doc)
	if err != nil {
		return zero, fmt.Errorf("encode %s/%s: %w", s.coll.Name(), id, err)
	}
	fields = append(fields, bson.E{Key: VersionField, Value: int64(1)})
	full := append(bson.D{{Key: "_id", Value: id}}, fields...)
	if len(evs) > 0 {
		full = append(full, bson.E{Key: OutboxField, Value: evs})
	}
	if _, err := s.coll.InsertOne(s.writeCtx(ctx), full); err != nil {
		if IsDuplicate(err) {
			return zero, fmt.Errorf("insert into %s: %w", s.coll.Name(), ErrDuplicate)
		}
		s.failed(id)
		s.doubt(evs)
		return zero, fmt.Errorf("insert into %s: %w", s.coll.Name(), err)
	}
	if len(evs) > 0 {
		s.notify.Notify(s.coll, id)
	}
	return s.written(id, full)
}

// writeCtx is the context a write is sent with. Where a Mirror follows the
// documents (Written, on an exclusive database) the write outlives the
// request's context once sent: Written hears only of writes that answered,
// so a write cut off by the request's deadline and applied by the database
// anyway would leave the Mirror behind the database for good (and in its
// snapshot). The database is then the process's own (the embedded
// FerretDB), and the driver's socket timeout still bounds the write.
// Elsewhere the write ends with the request, its outcome in doubt.
func (s *Docs[T, E]) writeCtx(ctx context.Context) context.Context {
	if s.Written != nil && s.db.Exclusive() {
		return context.WithoutCancel(ctx)
	}
	return ctx
}

// doubt tells a Doubter about a failed write that carried events.
func (s *Docs[T, E]) doubt(evs []E) {
	if d, ok := s.notify.(Doubter); ok && len(evs) > 0 {
		d.Doubt(s.coll)
	}
}

// written decodes what was written and tells Written about it.
func (s *Docs[T, E]) written(id string, d bson.D) (T, error) {
	out, err := decodeAs[T](d)
	if err == nil {
		if s.Written != nil {
			s.Written(id, &out)
		}
		s.landed(id)
	}
	return out, err
}

// failed notes a write of id that failed: its outcome is unknown, and the
// cache may be behind the database.
func (s *Docs[T, E]) failed(id string) {
	if s.Cache != nil {
		s.unsure.Store(id, struct{}{})
	}
}

// landed notes a write of id that was answered: the cache holds it again.
func (s *Docs[T, E]) landed(id string) {
	if s.Cache != nil {
		s.unsure.Delete(id)
	}
}

// Update is the one read-modify-write: with the document's lock held it
// reads the document, runs change on it, and writes the result with the
// change's events into the outbox in one single-document write, guarded by
// the version on a shared database; on a version clash it reads again and
// reruns change (so change must be a pure function of the document), up to
// a bounded number of times. change's error is returned as it is, and
// nothing is written; ErrNoChange ends without a write and without error.
func (s *Docs[T, E]) Update(ctx context.Context, id string, change func(*T) ([]E, error)) (T, error) {
	var zero T
	defer s.db.Lock(s.coll, id)()
	for attempt := 0; attempt < maxAttempts; attempt++ {
		doc, version, err := s.read(ctx, id)
		if err != nil {
			return zero, err
		}
		evs, err := change(&doc)
		if errors.Is(err, ErrNoChange) {
			return doc, nil
		}
		if err != nil {
			return zero, err
		}
		fields, err := fieldsOf(doc)
		if err != nil {
			return zero, fmt.Errorf("encode %s/%s: %w", s.coll.Name(), id, err)
		}
		fields = append(fields, bson.E{Key: VersionField, Value: version + 1})
		update := bson.M{"$set": fields}
		if len(evs) > 0 {
			update["$push"] = bson.M{OutboxField: bson.M{"$each": evs}}
		}
		if s.BeforeWrite != nil {
			s.BeforeWrite(ctx, id)
		}
		res, err := s.coll.UpdateOne(s.writeCtx(ctx), s.db.Guarded(id, versionGuard(version)), update)
		if err != nil {
			if IsDuplicate(err) {
				return zero, fmt.Errorf("update %s/%s: %w", s.coll.Name(), id, ErrDuplicate)
			}
			s.failed(id)
			s.doubt(evs)
			return zero, fmt.Errorf("update %s/%s: %w", s.coll.Name(), id, err)
		}
		if res.MatchedCount == 0 {
			// another replica changed (or removed) it first: decide again
			// on what it wrote, read from the database
			s.failed(id)
			continue
		}
		if len(evs) > 0 {
			s.notify.Notify(s.coll, id)
		}
		return s.written(id, append(bson.D{{Key: "_id", Value: id}}, fields...))
	}
	return zero, fmt.Errorf("update %s/%s: %w", s.coll.Name(), id, ErrVersionClash)
}

// Delete removes the document if check (run on the current document with
// its lock held) allows it, guarded by the version like Update. Its events
// cannot ride in the removed document: callers that publish on removal keep
// a tombstone (an Update) instead.
func (s *Docs[T, E]) Delete(ctx context.Context, id string, check func(*T) error) error {
	defer s.db.Lock(s.coll, id)()
	for attempt := 0; attempt < maxAttempts; attempt++ {
		doc, version, err := s.read(ctx, id)
		if err != nil {
			return err
		}
		if check != nil {
			if err := check(&doc); err != nil {
				return err
			}
		}
		if s.BeforeWrite != nil {
			s.BeforeWrite(ctx, id)
		}
		res, err := s.coll.DeleteOne(s.writeCtx(ctx), s.db.Guarded(id, versionGuard(version)))
		if err != nil {
			s.failed(id)
			return fmt.Errorf("delete %s/%s: %w", s.coll.Name(), id, err)
		}
		if res.DeletedCount == 1 {
			if s.Written != nil {
				s.Written(id, nil)
			}
			s.landed(id)
			return nil
		}
		s.failed(id)
	}
	return fmt.Errorf("delete %s/%s: %w", s.coll.Name(), id, ErrVersionClash)
}

// versionGuard matches the version read; a document written before versions
// were kept has none, which reads as 0.
func versionGuard(v int64) bson.M {
	if v == 0 {
		return bson.M{VersionField: bson.M{"$exists": false}}
	}
	return bson.M{VersionField: v}
}

// read returns the document (without its outbox) and its version.
func (s *Docs[T, E]) read(ctx context.Context, id string) (T, int64, error) {
	var zero T
	if s.Cache != nil {
		if _, unsure := s.unsure.Load(id); !unsure {
			if doc, version, found, ok := s.Cache(id); ok {
				if !found {
					return zero, 0, ErrNotFound
				}
				return doc, version, nil
			}
		}
	}
	return s.readStored(ctx, id)
}

// readStored reads the document from the database.
func (s *Docs[T, E]) readStored(ctx context.Context, id string) (T, int64, error) {
	var zero T
	raw, err := s.coll.FindOne(ctx, bson.M{"_id": id}, options.FindOne().SetProjection(bson.M{OutboxField: 0})).Raw()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return zero, 0, ErrNotFound
	}
	if err != nil {
		return zero, 0, fmt.Errorf("read %s/%s: %w", s.coll.Name(), id, err)
	}
	var doc T
	if err := bson.Unmarshal(raw, &doc); err != nil {
		return zero, 0, fmt.Errorf("decode %s/%s: %w", s.coll.Name(), id, err)
	}
	var version int64
	if v, err := raw.LookupErr(VersionField); err == nil {
		version, _ = v.AsInt64OK()
	}
	return doc, version, nil
}

func (s *Docs[T, E]) exists(ctx context.Context, id string) (bool, error) {
	err := s.coll.FindOne(ctx, bson.M{"_id": id}, options.FindOne().SetProjection(bson.M{"_id": 1})).Err()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("look up %s/%s: %w", s.coll.Name(), id, err)
	}
	return true, nil
}

// fieldsOf is doc's fields without _id, the version and the outbox, which
// Docs owns.
func fieldsOf(doc any) (bson.D, error) {
	raw, err := bson.Marshal(doc)
	if err != nil {
		return nil, err
	}
	var all bson.D
	if err := bson.Unmarshal(raw, &all); err != nil {
		return nil, err
	}
	out := all[:0]
	for _, e := range all {
		switch e.Key {
		case "_id", VersionField, OutboxField:
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

func decodeAs[T any](d bson.D) (T, error) {
	var out T
	raw, err := bson.Marshal(d)
	if err != nil {
		return out, err
	}
	err = bson.Unmarshal(raw, &out)
	return out, err
}
