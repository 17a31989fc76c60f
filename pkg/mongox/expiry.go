package mongox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
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
// background of the writes that call Tick. On an exclusive database the
// writers Track what they write, and a sweep after the first deletes
// those by _id.
type Expiry struct {
	coll      *mongo.Collection
	log       *slog.Logger
	lastSweep atomic.Int64 // unix nanoseconds
	sweeping  atomic.Bool
	// tracked are, on an exclusive database, the ids of the documents
	// this process wrote (Track), by the minute they expire in: a sweep
	// deletes those by _id (see sweepTracked). Until filterUntil, when
	// every document an earlier process left has expired, and once after
	// it (filtered), a sweep filters instead.
	exclusive   bool
	filterUntil time.Time
	filtered    atomic.Bool
	mu          sync.Mutex
	tracked     map[int64][]trackedDoc
}

// trackedDoc is a tracked document's id and when it expires (unix
// nanoseconds).
type trackedDoc struct {
	id      string
	expires int64
}

// NewExpiry prepares the expiry of db's collection coll: the TTL index
// where the backend has one. untracked is how long documents written
// before this start (which this process did not Track) may still be
// unexpired: the sweeps filter until it has passed.
func NewExpiry(ctx context.Context, db *DB, coll *mongo.Collection, untracked time.Duration, log *slog.Logger) (*Expiry, error) {
	if log == nil {
		log = slog.Default()
	}
	e := &Expiry{coll: coll, log: log, exclusive: db.Exclusive(), tracked: map[int64][]trackedDoc{},
		filterUntil: time.Now().Add(untracked)}
	if e.exclusive {
		// An empty collection holds nothing of an earlier process: no
		// sweep needs to filter. (One document read, without a filter:
		// FerretDB answers it without a scan.)
		err := coll.FindOne(ctx, bson.M{}, options.FindOne().SetProjection(bson.M{"_id": 1})).Err()
		switch {
		case errors.Is(err, mongo.ErrNoDocuments):
			e.filtered.Store(true)
		case err != nil:
			return nil, fmt.Errorf("expiry of %s: %w", coll.Name(), err)
		}
	}
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
	if e.exclusive && e.filtered.Load() {
		return e.sweepTracked(ctx, now)
	}
	res, err := e.coll.DeleteMany(ctx, bson.M{ExpiresField: bson.M{"$lt": now.UTC()}})
	if err != nil {
		return 0, err
	}
	e.filtered.Store(e.exclusive && now.After(e.filterUntil))
	return res.DeletedCount, nil
}

// Track notes, on an exclusive database, that id is written to expire at
// expires (whether its insert lands or not: deleting an id that is not
// stored deletes nothing). Elsewhere it does nothing.
func (e *Expiry) Track(id string, expires time.Time) {
	if !e.exclusive {
		return
	}
	d := trackedDoc{id: id, expires: expires.UnixNano()}
	e.mu.Lock()
	e.tracked[minuteOf(d.expires)] = append(e.tracked[minuteOf(d.expires)], d)
	e.mu.Unlock()
}

// minuteOf is the minute of a time in unix nanoseconds: the key of the
// group its tracked documents are kept in.
func minuteOf(unixNano int64) int64 { return unixNano / int64(time.Minute) }

// trackedBatch bounds the ids of one delete: FerretDB finds up to 1,000
// _id values of an $in through its _id index.
const trackedBatch = 1000

// sweepTracked deletes, by _id, the tracked documents that expired before
// now. On the embedded default a delete by any other filter decodes
// every document of the collection (about 10 µs each): with 1,000 writes a
// second the request signatures alone are 300,000 documents, 3 s of a core
// each minute, in one burst. Once the documents of earlier processes have
// expired and a filtering sweep took them, every document of the
// collection is one this process wrote and tracked, so the tracked ids
// are all there is to delete. What fails is tracked again.
func (e *Expiry) sweepTracked(ctx context.Context, now time.Time) (int64, error) {
	cutoff := now.UnixNano()
	current := minuteOf(cutoff)
	e.mu.Lock()
	var due []trackedDoc
	for minute, docs := range e.tracked {
		switch {
		case minute < current:
			due = append(due, docs...)
			delete(e.tracked, minute)
		case minute == current:
			// the minute under way: what expired before now goes
			kept := docs[:0]
			for _, d := range docs {
				if d.expires < cutoff {
					due = append(due, d)
				} else {
					kept = append(kept, d)
				}
			}
			e.tracked[minute] = kept
		}
	}
	e.mu.Unlock()
	var deleted int64
	for len(due) > 0 {
		batch := due[:min(len(due), trackedBatch)]
		ids := make([]string, len(batch))
		for i, d := range batch {
			ids[i] = d.id
		}
		res, err := e.coll.DeleteMany(ctx, bson.M{"_id": bson.M{"$in": ids}})
		if err != nil {
			e.mu.Lock()
			for _, d := range due {
				e.tracked[minuteOf(d.expires)] = append(e.tracked[minuteOf(d.expires)], d)
			}
			e.mu.Unlock()
			return deleted, err
		}
		deleted += res.DeletedCount
		due = due[len(batch):]
	}
	return deleted, nil
}
