package mongox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// ExpiresField is the field an Expiry reads: the time after which a
// document may be deleted.
const ExpiresField = "expires_at"

// sweepEvery is how often an Expiry deletes expired documents; a stale
// document costs space only, never a wrong answer, since readers compare
// expires_at themselves where it matters.
const sweepEvery = time.Minute

// Expiry removes the documents of a collection whose expires_at has passed.
// On MongoDB a TTL index does it; FerretDB v1 (the embedded backend) has no
// TTL indexes, so every Expiry also sweeps, at most once a minute, in the
// background of the writes that call Tick.
type Expiry struct {
	coll      *mongo.Collection
	log       *slog.Logger
	lastSweep atomic.Int64 // unix nanoseconds
	sweeping  atomic.Bool
}

// NewExpiry prepares coll's expiry: the TTL index where the backend has one.
func NewExpiry(ctx context.Context, coll *mongo.Collection, log *slog.Logger) (*Expiry, error) {
	if log == nil {
		log = slog.Default()
	}
	e := &Expiry{coll: coll, log: log}
	e.lastSweep.Store(time.Now().UnixNano())
	ttl := mongo.IndexModel{Keys: bson.D{{Key: ExpiresField, Value: 1}},
		Options: options.Index().SetName("expiry").SetExpireAfterSeconds(0)}
	err := EnsureIndexes(ctx, coll, ttl)
	var ce mongo.CommandError
	if errors.As(err, &ce) && ce.Name == "NotImplemented" {
		log.Debug("no TTL indexes on this database; expired documents are swept", "collection", coll.Name())
		err = nil
	}
	if err != nil {
		return nil, fmt.Errorf("expiry of %s: %w", coll.Name(), err)
	}
	return e, nil
}

// Tick starts one background sweep when the last one is older than a minute.
func (e *Expiry) Tick(now time.Time) {
	if now.UnixNano()-e.lastSweep.Load() < int64(sweepEvery) || !e.sweeping.CompareAndSwap(false, true) {
		return
	}
	e.lastSweep.Store(now.UnixNano())
	go func() {
		defer e.sweeping.Store(false)
		if _, err := e.Sweep(context.Background(), now); err != nil {
			e.log.Warn("sweep expired documents", "collection", e.coll.Name(), "err", err)
		}
	}()
}

// Sweep deletes the documents that expired before now and says how many.
func (e *Expiry) Sweep(ctx context.Context, now time.Time) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	res, err := e.coll.DeleteMany(ctx, bson.M{ExpiresField: bson.M{"$lt": now.UTC()}})
	if err != nil {
		return 0, err
	}
	return res.DeletedCount, nil
}
