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
	"sharedworld.dev/services/bulletin/internal/messages"
)

// Announcements stores the ambassador's announcements, the aggregate the
// bulletin owns, as mongox.Docs: each document carries its unpublished
// events (the outbox), written in the same single-document write as the
// state, and its version, which Docs keeps.
type Announcements struct {
	docs *mongox.Docs[postDoc, events.Event]
}

var _ domain.AnnouncementRepository = (*Announcements)(nil)

// NewAnnouncements uses db's "announcements" collection and tells notify
// (the relay) about every write that leaves events.
func NewAnnouncements(db *mongox.DB, notify mongox.Notifier) *Announcements {
	return &Announcements{docs: mongox.NewDocs[postDoc, events.Event](db, "announcements", notify)}
}

// Collection is the collection whose documents carry outboxes (for the relay).
func (s *Announcements) Collection() *mongo.Collection { return s.docs.Collection() }

// EnsureIndexes creates the index that finds the pinned announcements.
func (s *Announcements) EnsureIndexes(ctx context.Context) error {
	return mongox.EnsureIndexes(ctx, s.Collection(), mongox.Index("pinned", false, bson.E{Key: "pinned", Value: 1}))
}

// postIDPrefix is the prefix of the ids Docs draws: ann_<8 hex>, the
// post_id shape (domain.ValidPostID).
const postIDPrefix = "ann"

type postDoc struct {
	ID       string    `bson:"_id"`
	Title    string    `bson:"title"`
	Content  string    `bson:"content"`
	PostedAt time.Time `bson:"posted_at"`
	Pinned   bool      `bson:"pinned"`
	// Version is the domain's version, kept by Docs: the version read plus
	// one on every change, as the domain counts.
	Version uint64 `bson:"version"`
}

func (d postDoc) announcement() domain.Announcement {
	return domain.Announcement{PostID: d.ID, Title: d.Title, Content: d.Content, PostedAt: d.PostedAt.UTC(), Pinned: d.Pinned, Version: d.Version}
}

func docOf(a domain.Announcement) postDoc {
	return postDoc{ID: a.PostID, Title: a.Title, Content: a.Content, PostedAt: a.PostedAt, Pinned: a.Pinned, Version: a.Version}
}

// Add stores a new announcement with its event under a fresh post_id.
func (s *Announcements) Add(ctx context.Context, build func(postID string) domain.AnnouncementChange) (domain.Announcement, error) {
	d, err := s.docs.Create(ctx, postIDPrefix, func(id string) (postDoc, []events.Event, error) {
		ch := build(id)
		evs, err := outboxOf(ch.Event)
		return docOf(ch.Announcement), evs, err
	})
	if err != nil {
		return domain.Announcement{}, fmt.Errorf("post announcement: %w", err)
	}
	return d.announcement(), nil
}

// Get returns one announcement.
func (s *Announcements) Get(ctx context.Context, postID string) (domain.Announcement, error) {
	d, err := s.docs.Get(ctx, postID)
	if errors.Is(err, mongox.ErrNotFound) {
		return domain.Announcement{}, domain.ErrAnnouncementNotFound
	}
	if err != nil {
		return domain.Announcement{}, err
	}
	return d.announcement(), nil
}

var noOutbox = options.Find().SetProjection(bson.M{mongox.OutboxField: 0})

// Pinned returns every announcement marked pinned.
func (s *Announcements) Pinned(ctx context.Context) ([]domain.Announcement, error) {
	docs, err := mongox.FindAll[postDoc](ctx, s.Collection(), bson.M{"pinned": true}, noOutbox)
	if err != nil {
		return nil, fmt.Errorf("read pinned announcements: %w", err)
	}
	out := make([]domain.Announcement, len(docs))
	for i, d := range docs {
		out[i] = d.announcement()
	}
	return out, nil
}

// Update changes one announcement through Docs.Update: change runs on the
// stored state (again, on a version clash) and its events ride in the same
// write.
func (s *Announcements) Update(ctx context.Context, postID string,
	change func(*domain.Announcement) ([]domain.AnnouncementEvent, error)) (domain.Announcement, error) {
	d, err := s.docs.Update(ctx, postID, func(d *postDoc) ([]events.Event, error) {
		a := d.announcement()
		evs, err := change(&a)
		if err != nil {
			return nil, err
		}
		if len(evs) == 0 {
			return nil, mongox.ErrNoChange
		}
		*d = docOf(a)
		return outboxOf(evs...)
	})
	if errors.Is(err, mongox.ErrNotFound) {
		return domain.Announcement{}, domain.ErrAnnouncementNotFound
	}
	if err != nil {
		return domain.Announcement{}, err
	}
	return d.announcement(), nil
}

// outboxOf is the catalog events the domain events publish.
func outboxOf(evs ...domain.AnnouncementEvent) ([]events.Event, error) {
	out := make([]events.Event, len(evs))
	for i, ev := range evs {
		e, err := messages.FromAnnouncement(ev)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}
