package store

import (
	"context"
	"errors"
	"sync"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/messaging/internal/domain"
)

// Mirrored is the messaging adapter of the embedded default, where this
// process is the database's only writer: the MongoDB adapter, whose writes
// it keeps in an in-memory copy of every collection, answering every list,
// count and filter from memory. FerretDB v1 answers only exact _id lookups
// from an index and decodes the whole collection for any other filter,
// sort or count; here those cost what they cost on MongoDB's indexes.
type Mirrored struct {
	*Store
	copy *mirrors
	// bySeqUpTo: see broadcastsBySeqUpTo (tests lower it to walk both ways).
	bySeqUpTo int64
}

// NewMirrored keeps messaging as New does, with the in-memory copy. db must
// be exclusive: another writer's changes would never reach the copy.
func NewMirrored(db *mongox.DB, encode Encoder, notify mongox.Notifier) *Mirrored {
	copy := mirrorsOf(db)
	if copy == nil {
		panic("store.NewMirrored: the database is shared; use New")
	}
	m := &Mirrored{Store: New(db, encode, notify), copy: copy, bySeqUpTo: broadcastsBySeqUpTo}
	m.keep()
	return m
}

// Repos are the store's domain repositories, answering reads from memory.
func (m *Mirrored) Messages() domain.Messages { return mirroredMessages{messageRepo{m.Store}, m.copy} }
func (m *Mirrored) Notifications() domain.Notifications {
	return mirroredNotifications{notificationRepo{m.Store}, m}
}
func (m *Mirrored) Inbox() domain.Inbox     { return mirroredInbox{inboxRepo{m.Store}, m.copy} }
func (m *Mirrored) Commons() domain.Commons { return mirroredCommons{commonsRepo{m.Store}, m.copy} }
func (m *Mirrored) Stewards() Stewards      { return mirroredStewards{stewardRepo{m.Store}, m.copy} }

// EnsureIndexes creates the indexes and loads the stored rows into memory.
func (m *Mirrored) EnsureIndexes(ctx context.Context) error {
	if err := m.Store.EnsureIndexes(ctx); err != nil {
		return err
	}
	return m.load(ctx)
}

// keep makes every Docs of the store report its writes to the copies (under
// the document's lock, so one document's writes arrive in their order),
// and the steward offices theirs.
func (m *Mirrored) keep() {
	c, s := m.copy, m.Store
	s.messages.Written = written(c.messages)
	s.personals.Written = written(c.personals)
	s.posts.Written = written(c.posts)
	s.inbox.Written = written(c.inbox)
	s.broadcasts.Written = written(c.broadcasts.Mirror)
	s.reads.Written = written(c.reads)
	s.stewardWritten = c.stewards.Put
}

func written[R any](m *mongox.Mirror[R]) func(id string, d *R) {
	return func(id string, d *R) {
		if d == nil {
			m.Delete(id)
			return
		}
		m.Put(*d)
	}
}

// load fills each copy with one scan of its collection (outboxes left
// out), the collections side by side: FerretDB decodes a scan on one core,
// and the messages and their notifications are most of the rows.
func (m *Mirrored) load(ctx context.Context) error {
	c, s := m.copy, m.Store
	loads := []func() error{
		func() error { return loadMirror(ctx, c.messages, s.messages.Collection()) },
		func() error { return loadMirror(ctx, c.personals, s.personals.Collection()) },
		func() error { return loadMirror(ctx, c.posts, s.posts.Collection()) },
		func() error { return loadMirror(ctx, c.inbox, s.inbox.Collection()) },
		func() error { return loadMirror(ctx, c.broadcasts.Mirror, s.broadcasts.Collection()) },
		func() error { return loadMirror(ctx, c.reads, s.reads.Collection()) },
		func() error { return loadMirror(ctx, c.stewards, s.stewards) },
	}
	errs := make([]error, len(loads))
	var wg sync.WaitGroup
	for i, load := range loads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = load()
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func loadMirror[R any](ctx context.Context, m *mongox.Mirror[R], coll *mongo.Collection) error {
	return m.Load(ctx, func(ctx context.Context) ([]R, error) {
		return mongox.ScanAll[R](ctx, m, coll, bson.M{mongox.OutboxField: 0})
	})
}
