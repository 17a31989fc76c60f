// Package store holds the messaging service's two adapters of its domain
// repositories: Store, the MongoDB adapter (production queries only), and
// Mirrored, which embeds it for the embedded default and answers the lists,
// counts and filters from memory. Aggregates with events (messages, inbox
// messages, commons posts) carry their events in their own document's
// outbox, written with the state in one write through mongox.Docs.
// Notifications are stored without fan-out: a broadcast is one document
// whatever the population, and each citizen's reading of the broadcasts is
// one small read-state document.
package store

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/messaging/internal/domain"
)

// Encoder turns a domain event (domain.Sent, InboxReceived, InboxReplied,
// CommonsPosted) into an outbox event.
type Encoder func(any) (events.Event, error)

// Store keeps every messaging collection of one database in MongoDB.
type Store struct {
	db         *mongox.DB
	encode     Encoder
	messages   *mongox.Docs[messageDoc, events.Event]
	inbox      *mongox.Docs[inboxDoc, events.Event]
	posts      *mongox.Docs[postDoc, events.Event]
	broadcasts *mongox.Docs[broadcastDoc, events.Event]
	personals  *mongox.Docs[personalDoc, events.Event]
	reads      *mongox.Docs[readStateDoc, events.Event]
	stewards   *mongo.Collection
	// stewardWritten, when set, is told each steward office as written,
	// while the office's lock is held (as mongox.Docs.Written is for the
	// other collections), so that a copy kept from it is never behind.
	stewardWritten func(stewardDoc)
}

// New keeps messaging in db and tells notify (the outbox relay) about every
// write that leaves events.
func New(db *mongox.DB, encode Encoder, notify mongox.Notifier) *Store {
	return &Store{
		db: db, encode: encode,
		messages:   mongox.NewDocs[messageDoc, events.Event](db, "messages", notify),
		inbox:      mongox.NewDocs[inboxDoc, events.Event](db, "inbox", notify),
		posts:      mongox.NewDocs[postDoc, events.Event](db, "commons_posts", notify),
		broadcasts: mongox.NewDocs[broadcastDoc, events.Event](db, "broadcasts", nil),
		personals:  mongox.NewDocs[personalDoc, events.Event](db, "notifications", nil),
		reads:      mongox.NewDocs[readStateDoc, events.Event](db, "read_states", nil),
		stewards:   db.Collection("stewards"),
	}
}

// Repos are the store's domain repositories.
func (s *Store) Messages() domain.Messages           { return messageRepo{s} }
func (s *Store) Notifications() domain.Notifications { return notificationRepo{s} }
func (s *Store) Inbox() domain.Inbox                 { return inboxRepo{s} }
func (s *Store) Commons() domain.Commons             { return commonsRepo{s} }
func (s *Store) Stewards() Stewards                  { return stewardRepo{s} }

// OutboxCollections are the collections whose documents carry outboxes,
// for the relay.
func (s *Store) OutboxCollections() []*mongo.Collection {
	return []*mongo.Collection{s.messages.Collection(), s.inbox.Collection(), s.posts.Collection()}
}

// DB is the database the store keeps messaging in.
func (s *Store) DB() *mongox.DB { return s.db }

func desc(keys ...string) []bson.E {
	out := make([]bson.E, 0, len(keys))
	for _, k := range keys {
		out = append(out, bson.E{Key: k, Value: -1})
	}
	return out
}

func asc(k string) bson.E { return bson.E{Key: k, Value: 1} }

// EnsureIndexes creates what every list, count and limit needs. Each list
// index ends with its list order (time desc, _id desc), so a page is one
// index range scan on MongoDB wherever it starts.
func (s *Store) EnsureIndexes(ctx context.Context) error {
	steps := []struct {
		coll   *mongo.Collection
		models []mongo.IndexModel
	}{
		{s.messages.Collection(), []mongo.IndexModel{
			mongox.Index("inbox", false, append([]bson.E{asc("to_agent_id")}, desc("sent_at", "_id")...)...),
			mongox.Index("sent", false, append([]bson.E{asc("from_agent_id")}, desc("sent_at", "_id")...)...),
		}},
		{s.inbox.Collection(), []mongo.IndexModel{
			mongox.Index("daily_slot", true, asc("from_agent_id"), asc("day")),
			mongox.Index("newest", false, desc("created_at", "_id")...),
			mongox.Index("from_newest", false, append([]bson.E{asc("from_agent_id")}, desc("created_at", "_id")...)...),
			mongox.Index("backlog", false, asc("replied")),
		}},
		{s.posts.Collection(), []mongo.IndexModel{
			mongox.Index("daily_slot", true, asc("slot_key")),
			mongox.Index("channel_newest", false, append([]bson.E{asc("channel")}, desc("posted_at", "_id")...)...),
			mongox.Index("author_latest", false, append([]bson.E{asc("agent_id")}, desc("posted_at", "slot")...)...),
		}},
		{s.broadcasts.Collection(), []mongo.IndexModel{
			mongox.Index("key", true, asc("key")),
			mongox.Index("seq", true, asc("seq")),
			mongox.Index("newest", false, desc("created_at", "_id")...),
		}},
		{s.personals.Collection(), []mongo.IndexModel{
			mongox.Index("key", true, asc("key")),
			mongox.Index("agent_newest", false, append([]bson.E{asc("agent_id")}, desc("created_at", "_id")...)...),
		}},
	}
	for _, st := range steps {
		if err := mongox.EnsureIndexes(ctx, st.coll, st.models...); err != nil {
			return err
		}
	}
	return nil
}

// newestAfter is the filter of a newest-first page that continues after
// pos on the field at: at ≤ pos.At bounds the index scan, the $or drops
// the items of that same millisecond already on the previous page.
func newestAfter(filter bson.M, at string, pos *domain.Position) bson.M {
	if pos == nil {
		return filter
	}
	cond := bson.M{"$or": bson.A{
		bson.M{at: bson.M{"$lt": pos.At}},
		bson.M{at: pos.At, "_id": bson.M{"$lt": pos.ID}},
	}}
	if len(filter) == 0 {
		return cond
	}
	return bson.M{"$and": bson.A{filter, cond}}
}

func newestSort(at string) bson.D {
	return bson.D{{Key: at, Value: -1}, {Key: "_id", Value: -1}}
}

func utc(t time.Time) time.Time { return t.UTC() }

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
