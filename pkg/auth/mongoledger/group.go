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
// background: the first request of a batch sends it, and hands the next
// batch to the first request waiting for it.
type group struct {
	coll *mongo.Collection

	sent atomic.Int64 // batches sent

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

// sendTimeout bounds one batch's insert: it serves several requests, so it
// is not cut short by the one whose request gave up.
const sendTimeout = 10 * time.Second

// firstUse records doc and reports whether its _id was new.
func (g *group) firstUse(ctx context.Context, doc signatureDoc) (bool, error) {
	p := &pending{doc: doc, wake: make(chan bool, 1)}
	g.mu.Lock()
	g.queue = append(g.queue, p)
	lead := !g.sending
	g.sending = true
	g.mu.Unlock()
	if !lead && !<-p.wake {
		return p.first, p.err
	}
	g.mu.Lock()
	n := min(len(g.queue), maxBatch)
	batch := g.queue[:n:n]
	g.queue = g.queue[n:]
	g.mu.Unlock()

	sendCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sendTimeout)
	g.send(sendCtx, batch)
	cancel()

	g.mu.Lock()
	if len(g.queue) > 0 {
		g.queue[0].wake <- true // it sends the next batch
	} else {
		g.sending = false
	}
	g.mu.Unlock()
	for _, q := range batch {
		if q != p {
			q.wake <- false
		}
	}
	return p.first, p.err
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
