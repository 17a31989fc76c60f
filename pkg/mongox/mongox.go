// Package mongox holds the MongoDB helpers every store uses: connecting with
// timeouts, creating indexes at start, and collision-safe random ids.
package mongox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
	"go.mongodb.org/mongo-driver/mongo/readpref"
)

// Option adjusts a client's options before Connect opens it.
type Option func(*options.ClientOptions)

// Uncapped lifts the cap on the client's connections, for the embedded
// default. Its database commits the writes waiting at a moment together
// (one writer per database file), and a write waiting for its commit keeps
// its driver connection, so under a burst of writes a capped pool could be
// all writes waiting, and reads queued for a connection behind them, up to
// the request deadline: reads waited on writes. Uncapped, a read takes an
// idle connection or opens one. What bounds the connections instead is what
// bounds the work: the writes admitted per service (httpx.Admission), each
// request's deadline, and the fixed set of background loops.
func Uncapped() Option {
	return func(o *options.ClientOptions) { o.SetMaxPoolSize(0) }
}

// Connect opens a client with bounded connect, selection and socket timeouts
// and checks the server answers.
func Connect(ctx context.Context, uri string, extra ...Option) (*mongo.Client, error) {
	opts := options.Client().ApplyURI(uri).
		SetConnectTimeout(10 * time.Second).
		SetServerSelectionTimeout(5 * time.Second).
		SetSocketTimeout(30 * time.Second).
		SetMaxPoolSize(64).
		SetRetryWrites(false) // FerretDB has no retryable writes; Mongo works either way
	for _, o := range extra {
		o(opts)
	}
	client, err := mongo.Connect(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("connect to MongoDB: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := client.Ping(pctx, readpref.Primary()); err != nil {
		_ = client.Disconnect(context.Background())
		return nil, fmt.Errorf("ping MongoDB: %w", err)
	}
	return client, nil
}

// Ping is a readiness probe for a client.
func Ping(client *mongo.Client) func(ctx context.Context) error {
	return func(ctx context.Context) error { return client.Ping(ctx, readpref.Primary()) }
}

// EnsureIndexes creates the named indexes that coll lacks (run at start).
// Existing ones are left alone: re-creating an index FerretDB already has
// breaks its connection, and on MongoDB it is a no-op anyway. Replicas
// starting together may all find an index missing and one create it
// before another: a creation that fails is checked against the indexes
// listed again, and tried again (up to a few times) for those still
// missing.
func EnsureIndexes(ctx context.Context, coll *mongo.Collection, models ...mongo.IndexModel) error {
	var err error
	for attempt := range 5 {
		var missing []mongo.IndexModel
		if missing, err = missingIndexes(ctx, coll, models); err != nil || len(missing) == 0 {
			return err
		}
		if _, err = coll.Indexes().CreateMany(ctx, missing); err == nil {
			return nil
		}
		err = fmt.Errorf("create indexes on %s: %w", coll.Name(), err)
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(attempt+1) * 100 * time.Millisecond):
		}
	}
	return err
}

func missingIndexes(ctx context.Context, coll *mongo.Collection, models []mongo.IndexModel) ([]mongo.IndexModel, error) {
	if len(models) == 0 {
		return nil, nil
	}
	existing := map[string]bool{}
	cur, err := coll.Indexes().List(ctx)
	if err != nil {
		return nil, fmt.Errorf("list indexes of %s: %w", coll.Name(), err)
	}
	var specs []struct {
		Name string `bson:"name"`
	}
	if err := cur.All(ctx, &specs); err != nil {
		return nil, fmt.Errorf("list indexes of %s: %w", coll.Name(), err)
	}
	for _, s := range specs {
		existing[s.Name] = true
	}
	var missing []mongo.IndexModel
	for _, m := range models {
		if m.Options == nil || m.Options.Name == nil || !existing[*m.Options.Name] {
			missing = append(missing, m)
		}
	}
	return missing, nil
}

// Index is a shorthand for an index model on keys in order (1 ascending, -1 descending).
func Index(name string, unique bool, keys ...bson.E) mongo.IndexModel {
	return mongo.IndexModel{Keys: bson.D(keys), Options: options.Index().SetName(name).SetUnique(unique)}
}

// NewID returns prefix_ plus 8 lowercase hex characters from a CSPRNG (CONTRACT §1).
func NewID(prefix string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return prefix + "_" + hex.EncodeToString(b[:])
}

// IsDuplicate reports a unique-index violation. MongoDB answers one with
// code 11000 on every write; FerretDB v1 does so for inserts, but an update
// that would break a unique index other than _id comes back from its SQLite
// backend as an InternalError naming the constraint. Both are the same
// refusal (nothing was written), so both are ErrDuplicate for the stores.
func IsDuplicate(err error) bool {
	if mongo.IsDuplicateKeyError(err) {
		return true
	}
	var ce mongo.CommandError
	return errors.As(err, &ce) && ce.Code == ferretInternalError &&
		strings.Contains(ce.Message, "UNIQUE constraint failed")
}

// ferretInternalError is the code FerretDB v1 gives errors it does not map.
const ferretInternalError = 1

// FindAll runs a find and decodes every result into a slice, empty (never
// nil, so it encodes as []) when nothing matches.
func FindAll[T any](ctx context.Context, coll *mongo.Collection, filter any, opts ...*options.FindOptions) ([]T, error) {
	cur, err := coll.Find(ctx, filter, opts...)
	if err != nil {
		return nil, fmt.Errorf("find in %s: %w", coll.Name(), err)
	}
	out := []T{}
	if err := cur.All(ctx, &out); err != nil {
		return nil, fmt.Errorf("read %s: %w", coll.Name(), err)
	}
	return out, nil
}
