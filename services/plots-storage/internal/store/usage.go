package store

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// Usage keeps each tenancy's usage counters in one document, keyed by the
// tenancy (a plot claimed anew starts from zero without anything reset).
type Usage struct {
	coll *mongo.Collection
	// locks are this store's own: a usage lock is taken while a file's lock
	// is held, and separate stripes rule out the two ever being one mutex.
	db *mongox.DB
	// shared are the process's locks; they say whether filters carry guards.
}

// NewUsage uses db's "plot_usage" collection.
func NewUsage(db *mongox.DB) *Usage {
	return &Usage{coll: db.Collection("plot_usage"), db: db}
}

type usageDoc struct {
	Tenancy string `bson:"_id"`
	Bytes   int64  `bson:"bytes_used"`
	Files   int64  `bson:"files_used"`
}

// Reserve adds change to the tenancy's usage if the usage is within the
// ceiling that admits it — one conditional update, atomic on MongoDB and
// serialised here by the document lock on FerretDB — and returns the usage
// after it, or ErrNoRoom with the usage that refused it. Unchecked, it
// applies the change whatever the usage (giving space back).
func (s *Usage) Reserve(ctx context.Context, tenancy string, change domain.Change, checked bool) (domain.Usage, error) {
	defer s.db.LockKey(tenancy)()
	guard := bson.M{}
	if checked {
		// Checked here under the lock (what holds in this process, where the
		// filter may be the bare _id) and again in the filter (what holds
		// across MongoDB replicas).
		cur, err := s.current(ctx, tenancy)
		if err != nil {
			return domain.Usage{}, err
		}
		if !cur.Admits(change) {
			return cur, ErrNoRoom
		}
		ceil := change.Ceiling()
		guard = bson.M{"bytes_used": bson.M{"$lte": ceil.Bytes}, "files_used": bson.M{"$lte": ceil.Files}}
	}
	var after usageDoc
	err := s.coll.FindOneAndUpdate(ctx, s.db.Guarded(tenancy, guard),
		bson.M{"$inc": bson.M{"bytes_used": change.Bytes, "files_used": change.Files}},
		options.FindOneAndUpdate().SetReturnDocument(options.After).SetUpsert(true)).Decode(&after)
	if mongo.IsDuplicateKeyError(err) {
		// The document exists and the guard refused: the upsert tried to
		// insert a second one.
		cur, rerr := s.current(ctx, tenancy)
		if rerr != nil {
			return domain.Usage{}, rerr
		}
		return cur, ErrNoRoom
	}
	if err != nil {
		return domain.Usage{}, fmt.Errorf("reserve quota: %w", err)
	}
	return domain.Usage{Bytes: after.Bytes, Files: after.Files}, nil
}

func (s *Usage) current(ctx context.Context, tenancy string) (domain.Usage, error) {
	var d usageDoc
	err := s.coll.FindOne(ctx, bson.M{"_id": tenancy}).Decode(&d)
	if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
		return domain.Usage{}, fmt.Errorf("read usage: %w", err)
	}
	return domain.Usage{Bytes: d.Bytes, Files: d.Files}, nil
}

// Current returns a tenancy's usage.
func (s *Usage) Current(ctx context.Context, tenancy string) (domain.Usage, error) {
	return s.current(ctx, tenancy)
}

// DeleteTenancy removes an ended tenancy's counters.
func (s *Usage) DeleteTenancy(ctx context.Context, tenancy string) error {
	defer s.db.LockKey(tenancy)()
	_, err := s.coll.DeleteOne(ctx, bson.M{"_id": tenancy})
	return err
}
