package mongox

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
)

// BatchedDeletes removes documents by _id in batches, without a caller
// waiting: ids queued within a linger of each other go in one DeleteMany
// (an _id $in, which every backend reads through its _id index). It suits
// removals whose moment nobody reads, such as contents no head points to
// any more; a crash forgets the ids of the last linger, so what it removes
// must be harmless to keep.
type BatchedDeletes struct {
	coll   *mongo.Collection
	linger time.Duration
	// failed hears of ids whose delete failed (they are not retried).
	failed func(ids []string, err error)

	sent atomic.Int64 // deletes sent

	sending   sync.Mutex // one batch at a time, so Flush follows a batch on its way
	mu        sync.Mutex
	queue     []string
	scheduled bool
}

// NewBatchedDeletes removes from coll the ids queued within linger of the
// first of a batch; failed (nil: nobody) hears of those it could not.
func NewBatchedDeletes(coll *mongo.Collection, linger time.Duration, failed func(ids []string, err error)) *BatchedDeletes {
	if failed == nil {
		failed = func([]string, error) {}
	}
	return &BatchedDeletes{coll: coll, linger: linger, failed: failed}
}

// Queue puts id in the next batch and reports true, or false when MaxQueued
// ids wait already: the caller then deletes it itself.
func (b *BatchedDeletes) Queue(id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.queue) >= MaxQueued {
		return false
	}
	b.queue = append(b.queue, id)
	if !b.scheduled {
		b.scheduled = true
		time.AfterFunc(b.linger, func() {
			ctx, cancel := context.WithTimeout(context.Background(), sendTimeout)
			defer cancel()
			b.send(ctx)
		})
	}
	return true
}

// Flush removes what is queued now, after any batch on its way: a process
// that stops calls it before it closes its database.
func (b *BatchedDeletes) Flush(ctx context.Context) { b.send(ctx) }

// Sent is how many deletes were sent.
func (b *BatchedDeletes) Sent() int64 { return b.sent.Load() }

func (b *BatchedDeletes) send(ctx context.Context) {
	b.sending.Lock()
	defer b.sending.Unlock()
	b.mu.Lock()
	ids := b.queue
	b.queue, b.scheduled = nil, false
	b.mu.Unlock()
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), maxBatch)]
		ids = ids[len(chunk):]
		b.sent.Add(1)
		if _, err := b.coll.DeleteMany(ctx, bson.M{"_id": bson.M{"$in": chunk}}); err != nil {
			b.failed(chunk, fmt.Errorf("delete from %s: %w", b.coll.Name(), err))
		}
	}
}
