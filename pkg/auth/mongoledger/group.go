package mongoledger

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/mongox"
)

// group inserts the signatures of concurrent requests together: every
// authenticated request of every service records its signature in the one
// gate database, whose writes go one at a time, so one insert per request
// made every request wait in that one line. The requests that arrive while
// an insert is on its way are sent as the next one, a single unordered
// insert of many documents, each with its own answer: its _id is new
// (first use) or a duplicate (a replay). No goroutine runs in the
// background while nothing waits: the first request of a batch sends it,
// and hands the next batch to the first request waiting for it; a batch
// whose first signature nobody waits for (record) gets a goroutine.
type group struct {
	coll *mongo.Collection

	sent     atomic.Int64 // batches sent
	recorded atomic.Int64 // signatures queued without a waiter

	mu      sync.Mutex
	sending bool       // a batch is on its way
	queue   []*pending // the next batch
}

// pending is one request's signature and, once its batch is sent, its
// answer.
type pending struct {
	doc   signatureDoc
	first bool
	err   error
	// wake says "your answer is ready" (false) or "send the next batch"
	// (true).
	wake chan bool
}

// maxBatch bounds one insert's documents.
const maxBatch = 512

// maxQueued bounds the signatures queued without a waiter: past it a read
// waits for its record like a write, so a stalled database holds requests
// back instead of memory growing.
const maxQueued = 8 * maxBatch

// sendTimeout bounds one batch's insert: it serves several requests, so it
// is not cut short by the one whose request gave up.
const sendTimeout = 10 * time.Second

// firstUse records doc and reports whether its _id was new.
func (g *group) firstUse(ctx context.Context, doc signatureDoc) (bool, error) {
	p := &pending{doc: doc, wake: make(chan bool, 1)}
	if _, lead := g.enqueue(p, 0); lead || <-p.wake {
		g.lead(ctx, p)
	}
	return p.first, p.err
}

// record queues doc for the next batch without waiting for its answer, and
// reports false (nothing queued) when maxQueued signatures already wait.
func (g *group) record(doc signatureDoc) bool {
	p := &pending{doc: doc} // no wake: nobody waits for this answer
	queued, lead := g.enqueue(p, maxQueued)
	if lead {
		go g.lead(context.Background(), p)
	}
	if queued {
		g.recorded.Add(1)
	}
	return queued
}

// enqueue puts p in the next batch unless limit (0: none) signatures wait
// already, and reports whether p is to send it (no batch was on its way).
func (g *group) enqueue(p *pending, limit int) (queued, lead bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if limit > 0 && len(g.queue) >= limit {
		return false, false
	}
	g.queue = append(g.queue, p)
	lead = !g.sending
	g.sending = true
	return true, lead
}

// lead sends the next batch, which holds p, hands the batch after it to
// its first signature's request (or to a goroutine of its own when nobody
// waits for that one) and wakes the rest of its own.
func (g *group) lead(ctx context.Context, p *pending) {
	g.mu.Lock()
	n := min(len(g.queue), maxBatch)
	batch := g.queue[:n:n]
	g.queue = g.queue[n:]
	g.mu.Unlock()

	sendCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sendTimeout)
	g.send(sendCtx, batch)
	cancel()

	g.mu.Lock()
	switch {
	case len(g.queue) == 0:
		g.sending = false
	case g.queue[0].wake == nil:
		go g.lead(context.Background(), g.queue[0])
	default:
		g.queue[0].wake <- true // it sends the next batch
	}
	g.mu.Unlock()
	for _, q := range batch {
		if q != p && q.wake != nil {
			q.wake <- false
		}
	}
}

// send inserts the batch and sets each one's answer.
func (g *group) send(ctx context.Context, batch []*pending) {
	docs := make([]any, len(batch))
	for i, p := range batch {
		docs[i] = p.doc
		p.first = true
	}
	g.sent.Add(1)
	_, err := g.coll.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	if err == nil {
		return
	}
	var bulk mongo.BulkWriteException
	if !errors.As(err, &bulk) || bulk.WriteConcernError != nil {
		// Not an answer per document: which of them were stored is not
		// known, so none counts as a first use (the client signs again).
		for _, p := range batch {
			p.first, p.err = false, fmt.Errorf("record signature: %w", err)
		}
		return
	}
	for _, we := range bulk.WriteErrors {
		if we.Index < 0 || we.Index >= len(batch) {
			continue
		}
		p := batch[we.Index]
		p.first = false
		if !mongox.IsDuplicate(we.WriteError) {
			p.err = fmt.Errorf("record signature: %w", we.WriteError)
		}
	}
}
