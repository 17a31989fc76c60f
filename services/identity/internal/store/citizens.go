// Package store holds identity's two adapters of domain.Repository
// (citizens with their outbox and the citizen-number sequence, and nothing
// else): Citizens, the MongoDB adapter (production queries only), and
// MirroredCitizens, which embeds it for the embedded default and answers
// reads by id, the directory and the pending claims from memory.
package store

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/identity/internal/domain"
	"sharedworld.dev/services/identity/internal/messages"
)

// citizenDoc is the stored citizen.
type citizenDoc struct {
	AgentID          string        `bson:"_id"`
	Status           domain.Status `bson:"status"`
	Name             string        `bson:"name"`
	Number           int64         `bson:"citizen_number,omitempty"`
	RegisteredAt     time.Time     `bson:"registered_at"`
	Bio              string        `bson:"bio"`
	Interests        []string      `bson:"interests"`
	DirectoryVisible bool          `bson:"directory_visible"`
	DirectoryBio     string        `bson:"directory_bio"`
	TombstonedAt     time.Time     `bson:"tombstoned_at,omitempty"`
	LastSeenAt       time.Time     `bson:"last_seen_at,omitempty"`
	LastSignedAt     time.Time     `bson:"last_signed_at,omitempty"`
	// Version is the document's, kept by mongox.Docs: the claim is its
	// first write and no citizen event, so it runs one ahead of the
	// citizen's version.
	Version int64 `bson:"version"`
}

// MarshalBSON is what a change writes: every field but presence. Touch
// writes presence without moving the version, so a change that wrote it
// back could undo a sighting another replica stored between the change's
// read and its write. (Reads decode every field.)
func (d citizenDoc) MarshalBSON() ([]byte, error) {
	type fields citizenDoc // without this method
	f := fields(d)
	f.LastSeenAt, f.LastSignedAt = time.Time{}, time.Time{} // omitted when zero
	return bson.Marshal(f)
}

func docOf(c domain.Citizen) citizenDoc {
	return citizenDoc{AgentID: c.AgentID, Status: c.Status, Name: c.Name, Number: c.Number, RegisteredAt: c.RegisteredAt,
		Bio: c.Bio, Interests: c.Interests, DirectoryVisible: c.DirectoryVisible, DirectoryBio: c.DirectoryBio,
		TombstonedAt: c.TombstonedAt, LastSeenAt: c.LastSeenAt, LastSignedAt: c.LastSignedAt, Version: int64(c.Version) + 1}
}

func (d citizenDoc) citizen() domain.Citizen {
	var version uint64
	if d.Version > 0 {
		version = uint64(d.Version) - 1
	}
	return domain.Citizen{AgentID: d.AgentID, Status: d.Status, Number: d.Number, RegisteredAt: d.RegisteredAt,
		Profile:    domain.Profile{Name: d.Name, Bio: d.Bio, Interests: d.Interests, DirectoryVisible: d.DirectoryVisible, DirectoryBio: d.DirectoryBio},
		LastSeenAt: d.LastSeenAt, LastSignedAt: d.LastSignedAt, TombstonedAt: d.TombstonedAt, Version: version}
}

// Citizens stores citizens; it is identity's domain.Repository.
type Citizens struct {
	docs    *mongox.Docs[citizenDoc, events.Event]
	numbers *mongo.Collection
	db      *mongox.DB
	next    int64 // next free citizen number, guarded by the sequence's lock
}

var _ domain.Repository = (*Citizens)(nil)

// NewCitizens uses db's "citizens" and "citizen_numbers" collections and
// tells notify about every write that leaves events.
func NewCitizens(db *mongox.DB, notify mongox.Notifier) *Citizens {
	return &Citizens{docs: mongox.NewDocs[citizenDoc, events.Event](db, "citizens", notify), numbers: db.Collection("citizen_numbers"), db: db}
}

// Collection is the collection whose documents carry outboxes (for the relay).
func (s *Citizens) Collection() *mongo.Collection { return s.docs.Collection() }

// EnsureIndexes creates the indexes the queries need.
func (s *Citizens) EnsureIndexes(ctx context.Context) error {
	if err := mongox.EnsureIndexes(ctx, s.Collection(),
		mongox.Index("citizen_number", false, bson.E{Key: "citizen_number", Value: 1}),
		mongox.Index("directory", false, bson.E{Key: "directory_visible", Value: 1}, bson.E{Key: "status", Value: 1}, bson.E{Key: "citizen_number", Value: 1}),
	); err != nil {
		return err
	}
	return mongox.EnsureIndexes(ctx, s.numbers, mongox.Index("agent_id", true, bson.E{Key: "agent_id", Value: 1}))
}

// Claim inserts a pending citizen under its agent_id: the unique _id
// decides between concurrent registrations of one agent.
func (s *Citizens) Claim(ctx context.Context, c domain.Citizen) error {
	c.Status = domain.StatusPending
	_, err := s.docs.Insert(ctx, c.AgentID, docOf(c))
	if errors.Is(err, mongox.ErrDuplicate) {
		return domain.ErrClaimed
	}
	return err
}

// Get returns a citizen by agent_id (any status); found is false when absent.
func (s *Citizens) Get(ctx context.Context, agentID string) (domain.Citizen, bool, error) {
	d, err := s.docs.Get(ctx, agentID)
	if errors.Is(err, mongox.ErrNotFound) {
		return domain.Citizen{}, false, nil
	}
	if err != nil {
		return domain.Citizen{}, false, err
	}
	return d.citizen(), true, nil
}

// Change is the one read-modify-write of a citizen (mongox.Docs.Update):
// fn's event goes into the outbox in the same write.
func (s *Citizens) Change(ctx context.Context, agentID string, fn func(*domain.Citizen) (domain.Event, error)) (domain.Citizen, error) {
	var seen, signed time.Time
	d, err := s.docs.Update(ctx, agentID, func(d *citizenDoc) ([]events.Event, error) {
		c := d.citizen()
		seen, signed = d.LastSeenAt, d.LastSignedAt
		ev, err := fn(&c)
		if err != nil {
			return nil, err
		}
		if ev == nil {
			return nil, mongox.ErrNoChange
		}
		out, err := messages.Outbox(ev)
		if err != nil {
			return nil, err
		}
		*d = docOf(c)
		return []events.Event{out}, nil
	})
	if errors.Is(err, mongox.ErrNotFound) {
		return domain.Citizen{}, domain.ErrNoCitizen
	}
	if err != nil {
		return domain.Citizen{}, err
	}
	// The write leaves presence alone, so the result has it as read.
	d.LastSeenAt, d.LastSignedAt = seen, signed
	return d.citizen(), nil
}

// Touch records presence: a plain $set under the document's lock, guarded
// by the status on a shared database, and no version change (presence is
// not a citizen event; consumers order citizen events by version).
func (s *Citizens) Touch(ctx context.Context, agentID string, seen, signed time.Time) error {
	return s.touch(ctx, agentID, seen, signed, nil)
}

// touch is Touch, calling touched (when not nil) after a write that found
// the living citizen, still under the document's lock.
func (s *Citizens) touch(ctx context.Context, agentID string, seen, signed time.Time, touched func()) error {
	defer s.db.Lock(s.Collection(), agentID)()
	set := bson.M{"last_seen_at": clock.Stored(seen)}
	if !signed.IsZero() {
		set["last_signed_at"] = clock.Stored(signed)
	}
	res, err := s.Collection().UpdateOne(ctx, s.db.Guarded(agentID, bson.M{"status": domain.StatusLiving}), bson.M{"$set": set})
	if err != nil {
		return fmt.Errorf("record presence of %s: %w", agentID, err)
	}
	if touched != nil && res.MatchedCount > 0 {
		touched()
	}
	return nil
}

// Pending lists citizens left pending by a crash, older than cutoff.
func (s *Citizens) Pending(ctx context.Context, cutoff time.Time) ([]domain.Citizen, error) {
	docs, err := mongox.FindAll[citizenDoc](ctx, s.Collection(), bson.M{"status": domain.StatusPending, "registered_at": bson.M{"$lt": cutoff}},
		options.Find().SetProjection(bson.M{mongox.OutboxField: 0}))
	return citizensOf(docs), err
}

// Directory lists visible, named, living citizens by citizen number.
func (s *Citizens) Directory(ctx context.Context, q domain.DirectoryQuery) ([]domain.Citizen, int64, error) {
	filter := bson.M{"directory_visible": true, "status": domain.StatusLiving, "name": bson.M{"$ne": ""}}
	if q.Search != "" {
		rx := containsFold(q.Search)
		filter["$or"] = bson.A{bson.M{"name": rx}, bson.M{"directory_bio": rx}}
	}
	if q.Interest != "" {
		filter["interests"] = equalFold(q.Interest)
	}
	total, err := s.Collection().CountDocuments(ctx, filter)
	if err != nil {
		return nil, 0, fmt.Errorf("count directory: %w", err)
	}
	docs, err := mongox.FindAll[citizenDoc](ctx, s.Collection(), filter, options.Find().SetSort(bson.D{{Key: "citizen_number", Value: 1}}).
		SetSkip(int64(q.Offset)).SetLimit(int64(q.Limit)).SetProjection(bson.M{mongox.OutboxField: 0}))
	if err != nil {
		return nil, 0, fmt.Errorf("list directory: %w", err)
	}
	return citizensOf(docs), total, nil
}

func citizensOf(docs []citizenDoc) []domain.Citizen {
	out := make([]domain.Citizen, len(docs))
	for i, d := range docs {
		out[i] = d.citizen()
	}
	return out
}

// containsFold matches s as a case-insensitive substring (s is quoted, never a pattern).
func containsFold(s string) bson.M {
	return bson.M{"$regex": regexp.QuoteMeta(s), "$options": "i"}
}

// equalFold matches s case-insensitively as a whole value.
func equalFold(s string) bson.M {
	return bson.M{"$regex": "^" + regexp.QuoteMeta(s) + "$", "$options": "i"}
}
