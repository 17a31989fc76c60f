package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/bulletin/internal/domain"
)

// Announcements stores the ambassador's announcements, the aggregate the
// bulletin owns. Each document carries its unpublished events (the outbox),
// written in the same single-document write as the state.
type Announcements struct {
	coll   *mongo.Collection
	notify events.Notifier
	// locks are the process's per-document write locks, shared with the
	// relay: FerretDB writes a whole document back on every update, so an
	// update and the relay's removal of sent entries must not overlap.
	db *mongox.DB
}

// NewAnnouncements uses db's "announcements" collection.
func NewAnnouncements(db *mongox.DB, notify events.Notifier) *Announcements {
	return &Announcements{coll: db.Collection("announcements"), notify: notify, db: db}
}

// Collection is the collection whose documents carry outboxes (for the relay).
func (s *Announcements) Collection() *mongo.Collection { return s.coll }

// EnsureIndexes creates the index that finds the pinned announcements.
func (s *Announcements) EnsureIndexes(ctx context.Context) error {
	return mongox.EnsureIndexes(ctx, s.coll, mongox.Index("pinned", false, bson.E{Key: "pinned", Value: 1}))
}

type postDoc struct {
	ID       string         `bson:"_id"`
	Title    string         `bson:"title"`
	Content  string         `bson:"content"`
	PostedAt time.Time      `bson:"posted_at"`
	Pinned   bool           `bson:"pinned"`
	Version  uint64         `bson:"version"`
	Outbox   []events.Event `bson:"_outbox,omitempty"`
}

func (d postDoc) announcement() domain.Announcement {
	return domain.Announcement{PostID: d.ID, Title: d.Title, Content: d.Content, PostedAt: d.PostedAt.UTC(), Pinned: d.Pinned, Version: d.Version}
}

var noOutbox = options.Find().SetProjection(bson.M{events.OutboxField: 0})

// Get returns one announcement.
func (s *Announcements) Get(ctx context.Context, postID string) (domain.Announcement, bool, error) {
	var d postDoc
	err := s.coll.FindOne(ctx, bson.M{"_id": postID}, options.FindOne().SetProjection(bson.M{events.OutboxField: 0})).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return domain.Announcement{}, false, nil
	}
	if err != nil {
		return domain.Announcement{}, false, fmt.Errorf("read announcement %s: %w", postID, err)
	}
	return d.announcement(), true, nil
}

// Pinned returns every announcement marked pinned (one, or none; more only
// after an interrupted pin, which the next pin repairs).
func (s *Announcements) Pinned(ctx context.Context) ([]domain.Announcement, error) {
	docs, err := mongox.FindAll[postDoc](ctx, s.coll, bson.M{"pinned": true}, noOutbox)
	if err != nil {
		return nil, fmt.Errorf("read pinned announcements: %w", err)
	}
	out := make([]domain.Announcement, len(docs))
	for i, d := range docs {
		out[i] = d.announcement()
	}
	return out, nil
}

// ErrIDTaken means a new announcement drew a post_id already in use.
var ErrIDTaken = errors.New("post_id already used")

// ErrVersionClash means the announcement changed since it was read.
var ErrVersionClash = errors.New("announcement changed concurrently")

// Apply writes one change with its event: a new announcement is inserted,
// a pin change updates the version it was computed from.
func (s *Announcements) Apply(ctx context.Context, ch domain.AnnouncementChange, ev events.Event) error {
	a := ch.Announcement
	if _, posted := ch.Event.(domain.AnnouncementPosted); posted {
		_, err := s.coll.InsertOne(ctx, postDoc{ID: a.PostID, Title: a.Title, Content: a.Content, PostedAt: a.PostedAt,
			Pinned: a.Pinned, Version: a.Version, Outbox: []events.Event{ev}})
		if mongox.IsDuplicate(err) { // _id is the collection's only unique index
			return ErrIDTaken
		}
		if err != nil {
			return fmt.Errorf("insert announcement: %w", err)
		}
		s.notify.Notify(s.coll, a.PostID)
		return nil
	}
	unlock := s.db.Lock(s.coll, a.PostID)
	defer unlock()
	res, err := s.coll.UpdateOne(ctx, bson.M{"_id": a.PostID, "version": a.Version - 1},
		events.WithOutbox(bson.M{"$set": bson.M{"pinned": a.Pinned, "version": a.Version}}, ev))
	if err != nil {
		return fmt.Errorf("update announcement %s: %w", a.PostID, err)
	}
	if res.MatchedCount == 0 {
		return ErrVersionClash
	}
	s.notify.Notify(s.coll, a.PostID)
	return nil
}
