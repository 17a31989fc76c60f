package mongox

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// BatchedInserts inserts the documents of concurrent callers into one
// collection together. The gate database takes a signature and a rate
// limit slot for every request of every service, so one insert per
// document made every request pay a command of its own. The documents
// that arrive while an insert is on its way are sent as the next one, a
// single unordered insert, each document with its own answer: stored, or a
// duplicate of its _id. No goroutine runs while nothing waits: the first
// caller of a batch sends it and hands the next batch to the first caller
// waiting for it; a batch whose first document nobody waits for (Queue)
// gets a goroutine, which may linger for company (WithLinger).
type BatchedInserts struct {
	coll *mongo.Collection
	// linger is how long a batch nobody waits for waits for more
	// documents before it is sent; a caller that waits cuts it short.
	linger time.Duration

	sent atomic.Int64 // inserts sent

	mu      sync.Mutex
	sending bool       // a batch is on its way (or lingering)
	queue   []*pending // the next batch
	// queued counts the documents taken, answered how many of them (in
	// order: batches go one at a time) were answered; answer is closed and
	// replaced whenever answered moves.
	queued, answered int64
	answer           chan struct{}
	// lingering is closed to end the next batch's linger; hurried spares
	// the next batch its linger (a caller waits in it, or flushes).
	lingering chan struct{}
	hurried   bool
}

// NewBatchedInserts batches the inserts into coll.
func NewBatchedInserts(coll *mongo.Collection) *BatchedInserts {
	return &BatchedInserts{coll: coll, answer: make(chan struct{})}
}

// WithLinger lets a batch that starts with a document nobody waits for wait
// up to d for more before it is sent: where most documents are queued, it
// turns many small inserts into a few larger ones at no caller's expense.
func (b *BatchedInserts) WithLinger(d time.Duration) *BatchedInserts {
	b.linger = d
	return b
}

// pending is one document and, once its batch is sent, its answer.
type pending struct {
	doc any
	err error
	// wake says "your answer is ready" (false) or "send the next batch"
	// (true); nil when nobody waits for the answer.
	wake chan bool
}

// maxBatch bounds one insert's documents.
const maxBatch = 512

// MaxQueued bounds the documents queued without a waiter: past it Queue
// refuses, and the caller waits like the others (Insert), so a stalled
// database holds requests back instead of memory growing.
const MaxQueued = 8 * maxBatch

// sendTimeout bounds one batch's insert: it serves several callers, so it
// is not cut short by the one that gave up.
const sendTimeout = 10 * time.Second

// Insert stores doc with the next batch: nil, ErrDuplicate when its _id is
// taken, or the error that stored it nowhere known.
func (b *BatchedInserts) Insert(ctx context.Context, doc any) error {
	p := &pending{doc: doc, wake: make(chan bool, 1)}
	if _, lead := b.enqueue(p, 0); lead || <-p.wake {
		b.lead(ctx, p)
	}
	return p.err
}

// Queue puts doc in the next batch without waiting for its answer, and
// reports false (nothing queued) when MaxQueued documents already wait.
func (b *BatchedInserts) Queue(doc any) bool {
	p := &pending{doc: doc}
	queued, lead := b.enqueue(p, MaxQueued)
	if lead {
		go b.lingerThenLead(p)
	}
	return queued
}

// lingerThenLead sends the batch p starts once the linger is over, or a
// caller who waits (or flushes) hurried it.
func (b *BatchedInserts) lingerThenLead(p *pending) {
	if b.linger > 0 {
		b.mu.Lock()
		var hurry chan struct{}
		if !b.hurried {
			hurry = make(chan struct{})
			b.lingering = hurry
		}
		b.mu.Unlock()
		if hurry != nil {
			t := time.NewTimer(b.linger)
			select {
			case <-t.C:
			case <-hurry:
			}
			t.Stop()
		}
	}
	b.lead(context.Background(), p)
}

// hurryLocked ends the next batch's linger, or spares it one.
func (b *BatchedInserts) hurryLocked() {
	b.hurried = true
	if b.lingering != nil {
		close(b.lingering)
		b.lingering = nil
	}
}

// QueueLinger is the linger of the gate's batches: a crash loses at most
// the documents of this long (and of the insert on its way) that nobody
// waited for.
const QueueLinger = 10 * time.Millisecond

// Flush waits until every document queued before it was answered, or ctx
// ends: a caller about to delete a document it queued flushes first, so
// the delete cannot overtake the insert, and a process that stops flushes
// before it closes its database, so the documents nobody waited for are
// stored all the same.
func (b *BatchedInserts) Flush(ctx context.Context) error {
	b.mu.Lock()
	b.hurryLocked()
	target := b.queued
	for b.answered < target {
		answer := b.answer
		b.mu.Unlock()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-answer:
		}
		b.mu.Lock()
	}
	b.mu.Unlock()
	return nil
}

// Sent is how many inserts were sent.
func (b *BatchedInserts) Sent() int64 { return b.sent.Load() }

// enqueue puts p in the next batch unless limit (0: none) documents wait
// already, and reports whether p is to send it (no batch was on its way).
func (b *BatchedInserts) enqueue(p *pending, limit int) (queued, lead bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if limit > 0 && len(b.queue) >= limit {
		return false, false
	}
	b.queue = append(b.queue, p)
	b.queued++
	lead = !b.sending
	b.sending = true
	if p.wake != nil {
		b.hurryLocked() // a caller waits in the next batch
	}
	return true, lead
}

// lead sends the next batch, which holds p, hands the batch after it to
// its first caller (or to a goroutine of its own when nobody waits for
// that one) and wakes the rest of its own.
func (b *BatchedInserts) lead(ctx context.Context, p *pending) {
	b.mu.Lock()
	n := min(len(b.queue), maxBatch)
	batch := b.queue[:n:n]
	b.queue = b.queue[n:]
	b.hurried, b.lingering = false, nil // what hurried this batch is in it
	b.mu.Unlock()

	sendCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sendTimeout)
	b.send(sendCtx, batch)
	cancel()

	b.mu.Lock()
	b.answered += int64(len(batch))
	close(b.answer)
	b.answer = make(chan struct{})
	switch {
	case len(b.queue) == 0:
		b.sending = false
	case b.queue[0].wake == nil:
		go b.lead(context.Background(), b.queue[0])
	default:
		b.queue[0].wake <- true // it sends the next batch
	}
	b.mu.Unlock()
	for _, q := range batch {
		if q != p && q.wake != nil {
			q.wake <- false
		}
	}
}

// send inserts the batch and sets each one's answer.
func (b *BatchedInserts) send(ctx context.Context, batch []*pending) {
	docs := make([]any, len(batch))
	for i, p := range batch {
		docs[i] = p.doc
	}
	b.sent.Add(1)
	_, err := b.coll.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	if err == nil {
		return
	}
	var bulk mongo.BulkWriteException
	if !errors.As(err, &bulk) || bulk.WriteConcernError != nil {
		// Not an answer per document: which of them were stored is not
		// known, so none counts as stored.
		for _, p := range batch {
			p.err = fmt.Errorf("insert into %s: %w", b.coll.Name(), err)
		}
		return
	}
	for _, we := range bulk.WriteErrors {
		if we.Index < 0 || we.Index >= len(batch) {
			continue
		}
		p := batch[we.Index]
		if IsDuplicate(we.WriteError) {
			p.err = fmt.Errorf("insert into %s: %w", b.coll.Name(), ErrDuplicate)
		} else {
			p.err = fmt.Errorf("insert into %s: %w", b.coll.Name(), we.WriteError)
		}
	}
}
