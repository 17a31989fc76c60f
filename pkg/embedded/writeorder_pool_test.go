package embedded

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/event"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/mongox"
)

// poolClient connects as the world does (mongox.Connect with the write
// order as dialer) and counts the connection check-outs begun.
func poolClient(t *testing.T, extra ...mongox.Option) (*Mongo, *mongo.Client, *atomic.Int64) {
	t.Helper()
	m, err := StartMongo(context.Background(), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Stop)
	var started atomic.Int64
	monitor := mongox.Option(func(o *options.ClientOptions) {
		o.SetPoolMonitor(&event.PoolMonitor{Event: func(e *event.PoolEvent) {
			if e.Type == event.GetStarted {
				started.Add(1)
			}
		}})
	})
	c, err := mongox.Connect(context.Background(), m.URI, append([]mongox.Option{mongox.Dialer(m.Writes), monitor}, extra...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Disconnect(context.Background()) })
	return m, c, &started
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A write waiting for its line holds the driver connection it was sent on.
// More writes waiting than a capped pool has connections must not leave a
// read of the same database waiting for one of them to be answered.
func TestReadsPassWhileWritesWaitingInTheLineHoldConnections(t *testing.T) {
	m, c, started := poolClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	coll := c.Database("pool_held").Collection("docs")
	if _, err := coll.InsertOne(ctx, bson.M{"_id": "first"}); err != nil {
		t.Fatal(err)
	}
	const writes = 100 // more than any pool cap the world ever set
	held := m.Writes.lineOf("pool_held")
	held.mu.Lock()
	before := started.Load()
	landed := make(chan error, writes)
	for i := range writes {
		go func() {
			_, err := coll.InsertOne(ctx, bson.M{"_id": fmt.Sprintf("w%d", i)})
			landed <- err
		}()
	}
	waitFor(t, "every write to ask for a connection", func() bool { return started.Load()-before >= writes })
	rctx, rcancel := context.WithTimeout(ctx, 10*time.Second)
	err := coll.FindOne(rctx, bson.M{"_id": "first"}).Err()
	rcancel()
	if err != nil {
		t.Fatalf("a read waited behind %d writes held in their line: %v", writes, err)
	}
	held.mu.Unlock()
	for range writes {
		if err := <-landed; err != nil {
			t.Fatal(err)
		}
	}
	if n, err := coll.CountDocuments(ctx, bson.M{}); err != nil || n != writes+1 {
		t.Fatalf("%d documents (%v), want %d", n, err, writes+1)
	}
}

// A write whose request gives up while it waits for its line's answer
// is answered at once (the driver closes the connection, which ends the
// wait), so its connection does not stay taken until the answer comes.
func TestAWriteGivenUpOnStopsWaitingForItsLine(t *testing.T) {
	// no socket timeout: nothing but the cancellation can end the wait
	m, c, _ := poolClient(t, func(o *options.ClientOptions) { o.SetSocketTimeout(0) })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	coll := c.Database("pool_cancel").Collection("docs")
	// the line's far end takes every write and never answers
	line := m.Writes.lineOf("pool_cancel")
	near, far := net.Pipe()
	go func() { _, _ = io.Copy(io.Discard, far) }()
	line.mu.Lock()
	line.conn = near
	line.mu.Unlock()
	t.Cleanup(func() {
		line.mu.Lock()
		line.breakLocked(near, net.ErrClosed)
		line.mu.Unlock()
	})
	wctx, wcancel := context.WithCancel(context.Background())
	answered := make(chan error, 1)
	go func() {
		_, err := coll.InsertOne(wctx, bson.M{"_id": "given-up"})
		answered <- err
	}()
	waitFor(t, "the write to wait for its answer", func() bool {
		line.mu.Lock()
		defer line.mu.Unlock()
		return len(line.waiting) == 1
	})
	wcancel()
	select {
	case err := <-answered:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("want context.Canceled, got %v", err)
		}
	case <-ctx.Done(): // without the cancellation's effect it waits for good
		t.Fatal("a write given up on still waits for its line")
	}
}
