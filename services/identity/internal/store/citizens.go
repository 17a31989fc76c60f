// Package store is identity's MongoDB adapter: citizens with their outbox,
// the citizen-number sequence, and the development provider's records.
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

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/identity/internal/domain"
)

// Citizen is the stored citizen document.
type Citizen struct {
	AgentID          string        `bson:"_id"`
	Status           domain.Status `bson:"status"`
	Name             string        `bson:"name"`
	Number           int64         `bson:"citizen_number,omitempty"`
	RegisteredAt     time.Time     `bson:"registered_at"`
	Bio              string        `bson:"bio"`
	Interests        []string      `bson:"interests"`
	DirectoryVisible bool          `bson:"directory_visible"`
	DirectoryBio     string        `bson:"directory_bio"`
	LastSeenAt       time.Time     `bson:"last_seen_at,omitempty"`
	LastSignedAt     time.Time     `bson:"last_signed_at,omitempty"`
	TombstonedAt     time.Time     `bson:"tombstoned_at,omitempty"`
	Version          uint64        `bson:"version"`
}

// Profile returns the citizen's profile part.
func (c Citizen) Profile() domain.Profile {
	return domain.Profile{Name: c.Name, Bio: c.Bio, Interests: c.Interests, DirectoryVisible: c.DirectoryVisible, DirectoryBio: c.DirectoryBio}
}

// Citizens stores citizens.
type Citizens struct {
	coll    *mongo.Collection
	numbers *mongo.Collection
	notify  events.Notifier
	db      *mongox.DB // its document locks are shared with the relay
	next    int64      // next free citizen number, guarded by the numbers lock
}

// ErrVersionClash means another write changed the citizen first.
var ErrVersionClash = errors.New("citizen changed concurrently")

// NewCitizens uses db's "citizens" and "citizen_numbers" collections.
func NewCitizens(db *mongox.DB, notify events.Notifier) *Citizens {
	return &Citizens{coll: db.Collection("citizens"), numbers: db.Collection("citizen_numbers"), notify: notify, db: db}
}

// Lock takes the write lock of one citizen document; hold it across a
// read-modify-write (Get, then Update).
func (s *Citizens) Lock(agentID string) (unlock func()) { return s.db.Lock(s.coll, agentID) }

// Collection is the collection whose documents carry outboxes (for the relay).
func (s *Citizens) Collection() *mongo.Collection { return s.coll }

// EnsureIndexes creates the indexes the queries need.
func (s *Citizens) EnsureIndexes(ctx context.Context) error {
	if err := mongox.EnsureIndexes(ctx, s.coll,
		mongox.Index("citizen_number", false, bson.E{Key: "citizen_number", Value: 1}),
		mongox.Index("directory", false, bson.E{Key: "directory_visible", Value: 1}, bson.E{Key: "status", Value: 1}, bson.E{Key: "citizen_number", Value: 1}),
	); err != nil {
		return err
	}
	return mongox.EnsureIndexes(ctx, s.numbers, mongox.Index("agent_id", true, bson.E{Key: "agent_id", Value: 1}))
}

// Claim inserts a pending citizen; an existing agent_id returns its status and ErrExists.
func (s *Citizens) Claim(ctx context.Context, c Citizen) (existing domain.Status, err error) {
	c.Status = domain.StatusPending
	_, err = s.coll.InsertOne(ctx, c)
	if err == nil {
		return "", nil
	}
	if !mongo.IsDuplicateKeyError(err) {
		return "", fmt.Errorf("claim agent_id: %w", err)
	}
	var old Citizen
	if err := s.coll.FindOne(ctx, bson.M{"_id": c.AgentID}, options.FindOne().SetProjection(bson.M{"status": 1})).Decode(&old); err != nil {
		return "", fmt.Errorf("read existing citizen: %w", err)
	}
	return old.Status, ErrExists
}

// ErrExists means the agent_id is already taken.
var ErrExists = errors.New("agent_id exists")

// NumberFor gives agentID the next citizen number, or the one it already
// holds. A number is a document whose _id is the number, and a unique index
// on agent_id keeps one number per agent: unique indexes decide between
// concurrent claimants on every backend, so numbers never repeat or skip
// (an atomic $inc is not available everywhere). The next free number is
// remembered in memory so a registration costs one insert, not a scan;
// another replica's insert shows up as a duplicate and moves it on.
func (s *Citizens) NumberFor(ctx context.Context, agentID string) (int64, error) {
	defer s.db.Lock(s.numbers, "next")()
	if s.next == 0 {
		var last struct {
			N int64 `bson:"_id"`
		}
		err := s.numbers.FindOne(ctx, bson.M{}, options.FindOne().SetSort(bson.D{{Key: "_id", Value: -1}})).Decode(&last)
		if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
			return 0, fmt.Errorf("read last citizen number: %w", err)
		}
		s.next = last.N + 1
	}
	for attempt := 0; attempt < 1000; attempt++ {
		_, err := s.numbers.InsertOne(ctx, bson.M{"_id": s.next, "agent_id": agentID})
		if err == nil {
			s.next++
			return s.next - 1, nil
		}
		if !mongo.IsDuplicateKeyError(err) {
			return 0, fmt.Errorf("claim citizen number: %w", err)
		}
		var held struct {
			N int64 `bson:"_id"`
		}
		err = s.numbers.FindOne(ctx, bson.M{"agent_id": agentID}).Decode(&held)
		if err == nil {
			return held.N, nil // a repaired registration keeps the number it had
		}
		if !errors.Is(err, mongo.ErrNoDocuments) {
			return 0, fmt.Errorf("read citizen number: %w", err)
		}
		s.next++ // taken by another replica
	}
	return 0, errors.New("claim citizen number: too much contention")
}

// Activate turns a pending citizen living with its number, writing the
// registration event into the same document.
func (s *Citizens) Activate(ctx context.Context, agentID string, number int64, ev events.Event) error {
	defer s.Lock(agentID)()
	res, err := s.coll.UpdateOne(ctx, s.db.Guarded(agentID, bson.M{"status": domain.StatusPending}),
		events.WithOutbox(bson.M{"$set": bson.M{"status": domain.StatusLiving, "citizen_number": number, "version": uint64(1)}}, ev))
	if err != nil {
		return fmt.Errorf("activate citizen: %w", err)
	}
	if res.MatchedCount == 0 {
		return fmt.Errorf("activate citizen %s: no longer pending", agentID)
	}
	s.notify.Notify(s.coll, agentID)
	return nil
}

// Pending lists citizens left pending by a crash, older than cutoff.
func (s *Citizens) Pending(ctx context.Context, cutoff time.Time) ([]Citizen, error) {
	return mongox.FindAll[Citizen](ctx, s.coll, bson.M{"status": domain.StatusPending, "registered_at": bson.M{"$lt": cutoff}})
}

// Get returns a citizen by agent_id (any status); found is false when absent.
func (s *Citizens) Get(ctx context.Context, agentID string) (Citizen, bool, error) {
	var c Citizen
	err := s.coll.FindOne(ctx, bson.M{"_id": agentID}, options.FindOne().SetProjection(bson.M{events.OutboxField: 0})).Decode(&c)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return c, false, nil
	}
	if err != nil {
		return c, false, fmt.Errorf("read citizen: %w", err)
	}
	return c, true, nil
}

// Update applies change to the citizen at version c.Version, with the events
// it causes, in one guarded write; ErrVersionClash when someone else won.
// The caller holds Lock(c.AgentID).
func (s *Citizens) Update(ctx context.Context, c Citizen, set bson.M, evs ...events.Event) error {
	set["version"] = c.Version + 1
	res, err := s.coll.UpdateOne(ctx, s.db.Guarded(c.AgentID, bson.M{"version": c.Version}), events.WithOutbox(bson.M{"$set": set}, evs...))
	if err != nil {
		return fmt.Errorf("update citizen: %w", err)
	}
	if res.MatchedCount == 0 {
		return ErrVersionClash
	}
	s.notify.Notify(s.coll, c.AgentID)
	return nil
}

// Touch records presence (no version change: presence is not a citizen event).
func (s *Citizens) Touch(ctx context.Context, agentID string, seen, signed time.Time) error {
	defer s.Lock(agentID)()
	set := bson.M{"last_seen_at": seen}
	if !signed.IsZero() {
		set["last_signed_at"] = signed
	}
	_, err := s.coll.UpdateOne(ctx, s.db.Guarded(agentID, bson.M{"status": domain.StatusLiving}), bson.M{"$set": set})
	return err
}

// DirectoryQuery selects directory entries.
type DirectoryQuery struct {
	Search   string
	Interest string
	Limit    int
	Offset   int
}

// Directory lists visible, named, living citizens by citizen number.
func (s *Citizens) Directory(ctx context.Context, q DirectoryQuery) ([]Citizen, int64, error) {
	filter := bson.M{"directory_visible": true, "status": domain.StatusLiving, "name": bson.M{"$ne": ""}}
	if q.Search != "" {
		rx := primitiveRegex(q.Search)
		filter["$or"] = bson.A{bson.M{"name": rx}, bson.M{"directory_bio": rx}}
	}
	if q.Interest != "" {
		filter["interests"] = primitiveRegexExact(q.Interest)
	}
	total, err := s.coll.CountDocuments(ctx, filter)
	if err != nil {
		return nil, 0, fmt.Errorf("count directory: %w", err)
	}
	out, err := mongox.FindAll[Citizen](ctx, s.coll, filter, options.Find().SetSort(bson.D{{Key: "citizen_number", Value: 1}}).
		SetSkip(int64(q.Offset)).SetLimit(int64(q.Limit)).SetProjection(bson.M{events.OutboxField: 0}))
	if err != nil {
		return nil, 0, fmt.Errorf("list directory: %w", err)
	}
	return out, total, nil
}

// primitiveRegex matches s as a case-insensitive substring (s is quoted, never a pattern).
func primitiveRegex(s string) bson.M {
	return bson.M{"$regex": regexp.QuoteMeta(s), "$options": "i"}
}

func primitiveRegexExact(s string) bson.M {
	return bson.M{"$regex": "^" + regexp.QuoteMeta(s) + "$", "$options": "i"}
}
