package embedded

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

func orderedClient(t *testing.T) (*Mongo, *mongo.Client) {
	t.Helper()
	m, err := StartMongo(context.Background(), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Stop)
	c, err := mongo.Connect(context.Background(), options.Client().ApplyURI(m.URI).SetRetryWrites(false).SetDialer(m.Writes))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Disconnect(context.Background()) })
	return m, c
}

// While one database's line is busy, reads of it and writes of other
// databases go on; a write of it waits for the line and then lands.
func TestWriteOrderHoldsOnlyWritesOfTheSameDatabase(t *testing.T) {
	m, c := orderedClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, b := c.Database("order_a").Collection("docs"), c.Database("order_b").Collection("docs")
	for _, coll := range []*mongo.Collection{a, b} {
		if _, err := coll.InsertOne(ctx, bson.M{"_id": "first"}); err != nil {
			t.Fatal(err)
		}
	}
	held := m.Writes.lineOf("order_a")
	held.mu.Lock() // order_a's line busy sending
	if err := a.FindOne(ctx, bson.M{"_id": "first"}).Err(); err != nil {
		t.Fatalf("a read waited for a write: %v", err)
	}
	if _, err := b.InsertOne(ctx, bson.M{"_id": "second"}); err != nil {
		t.Fatalf("another database's write waited: %v", err)
	}
	landed := make(chan error, 1)
	go func() {
		_, err := a.InsertOne(ctx, bson.M{"_id": "second"})
		landed <- err
	}()
	select {
	case err := <-landed:
		t.Fatalf("a write of the held database went ahead (%v)", err)
	case <-time.After(200 * time.Millisecond): // absence of an event: nothing to poll for
	}
	held.mu.Unlock()
	if err := <-landed; err != nil {
		t.Fatal(err)
	}
}

// Many writers of one database at once, each an insert or an update of a
// shared counter: every write is answered, none fails busy, and every
// raise of the counter lands (the order keeps FerretDB's read-then-write
// updates from overlapping, as the per-document locks do for one process).
func TestWriteOrderUnderConcurrentWriters(t *testing.T) {
	_, c := orderedClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	coll := c.Database("order_busy").Collection("docs")
	if _, err := coll.InsertOne(ctx, bson.M{"_id": "counter", "n": 0}); err != nil {
		t.Fatal(err)
	}
	const writers, each = 16, 20
	var wg sync.WaitGroup
	errs := make(chan error, writers*each*2)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if _, err := coll.InsertOne(ctx, bson.M{"_id": fmt.Sprintf("w%d-%d", w, i)}); err != nil {
					errs <- err
				}
				if _, err := coll.UpdateOne(ctx, bson.M{"_id": "counter"}, bson.M{"$inc": bson.M{"n": 1}}); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	n, err := coll.CountDocuments(ctx, bson.M{})
	if err != nil || n != writers*each+1 {
		t.Fatalf("%d documents (%v), want %d", n, err, writers*each+1)
	}
	var doc struct{ N int }
	if err := coll.FindOne(ctx, bson.M{"_id": "counter"}).Decode(&doc); err != nil || doc.N != writers*each {
		t.Fatalf("counter %d (%v), want %d", doc.N, err, writers*each)
	}
}
