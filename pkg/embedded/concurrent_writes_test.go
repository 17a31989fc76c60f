package embedded_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
)

// runAll runs n workers at once and fails the test with their errors.
func runAll(t *testing.T, n int, work func(i int) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := work(i); err != nil {
				errs <- fmt.Errorf("worker %d: %w", i, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// A guarded update (filter {_id, version}) from many connections at once
// lands once per version, as on MongoDB: the database reads and writes a
// document under its lock, so two writers never both match one version.
func TestGuardedUpdatesFromManyConnectionsLandOncePerVersion(t *testing.T) {
	_, c := pooledClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	docs := c.Database("guards").Collection("docs")
	if _, err := docs.InsertOne(ctx, bson.M{"_id": "one", "version": int64(0), "n": int64(0)}); err != nil {
		t.Fatal(err)
	}
	const writers, each = 12, 15
	runAll(t, writers, func(int) error {
		for landed := 0; landed < each; {
			var cur struct {
				Version int64 `bson:"version"`
			}
			if err := docs.FindOne(ctx, bson.M{"_id": "one"}).Decode(&cur); err != nil {
				return err
			}
			res, err := docs.UpdateOne(ctx, bson.M{"_id": "one", "version": cur.Version},
				bson.M{"$set": bson.M{"version": cur.Version + 1}, "$inc": bson.M{"n": 1}})
			if err != nil {
				return err
			}
			landed += int(res.ModifiedCount)
		}
		return nil
	})
	var got struct {
		Version int64 `bson:"version"`
		N       int64 `bson:"n"`
	}
	if err := docs.FindOne(ctx, bson.M{"_id": "one"}).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.Version != writers*each || got.N != writers*each {
		t.Fatalf("after %d acknowledged guarded updates: version %d, n %d", writers*each, got.Version, got.N)
	}
}

// Increments by _id and by a filter naming no _id (which holds the whole
// collection) from many connections at once all count.
func TestIncrementsFromManyConnectionsAllCount(t *testing.T) {
	_, c := pooledClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	docs := c.Database("counts").Collection("docs")
	if _, err := docs.InsertMany(ctx, []any{
		bson.M{"_id": "a", "kind": "counter", "n": int64(0)},
		bson.M{"_id": "b", "kind": "counter", "n": int64(0)},
	}); err != nil {
		t.Fatal(err)
	}
	const writers, each = 12, 15
	runAll(t, writers, func(i int) error {
		for range each {
			var err error
			if i%2 == 0 {
				_, err = docs.UpdateOne(ctx, bson.M{"_id": "a"}, bson.M{"$inc": bson.M{"n": 1}})
			} else {
				_, err = docs.UpdateMany(ctx, bson.M{"kind": "counter"}, bson.M{"$inc": bson.M{"n": 1}})
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	want := map[string]int64{"a": writers * each, "b": writers / 2 * each}
	for id, n := range want {
		var got struct {
			N int64 `bson:"n"`
		}
		if err := docs.FindOne(ctx, bson.M{"_id": id}).Decode(&got); err != nil {
			t.Fatal(err)
		}
		if got.N != n {
			t.Errorf("%s: n %d, want %d", id, got.N, n)
		}
	}
}

// Writes committed together each keep their own outcome: an insert of an
// _id that exists fails alone, and the writes beside it land.
func TestAFailingWriteAmongConcurrentOnesFailsAlone(t *testing.T) {
	_, c := pooledClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	docs := c.Database("mixed").Collection("docs")
	const rounds, writers = 5, 24
	taken := make([]any, writers)
	for i := range taken {
		taken[i] = bson.M{"_id": fmt.Sprintf("taken-%02d", i), "n": int64(0)}
	}
	if _, err := docs.InsertMany(ctx, taken); err != nil {
		t.Fatal(err)
	}
	runAll(t, writers, func(i int) error {
		for r := range rounds {
			switch i % 3 {
			case 0: // a duplicate: refused, nothing written
				_, err := docs.InsertOne(ctx, bson.M{"_id": fmt.Sprintf("taken-%02d", i), "n": int64(-1)})
				if !mongo.IsDuplicateKeyError(err) {
					return fmt.Errorf("insert of a taken _id: %w, want a duplicate key error", err)
				}
			case 1: // a new document
				if _, err := docs.InsertOne(ctx, bson.M{"_id": fmt.Sprintf("new-%02d-%d", i, r)}); err != nil {
					return err
				}
			case 2: // an update of a document of its own
				res, err := docs.UpdateOne(ctx, bson.M{"_id": fmt.Sprintf("taken-%02d", i)}, bson.M{"$inc": bson.M{"n": 1}})
				if err != nil || res.ModifiedCount != 1 {
					return fmt.Errorf("update: %w %+v", err, res)
				}
			}
		}
		return nil
	})
	for i := range writers {
		var got struct {
			N int64 `bson:"n"`
		}
		if err := docs.FindOne(ctx, bson.M{"_id": fmt.Sprintf("taken-%02d", i)}).Decode(&got); err != nil {
			t.Fatal(err)
		}
		want := int64(0)
		if i%3 == 2 {
			want = rounds
		}
		if got.N != want {
			t.Errorf("taken-%02d: n %d, want %d", i, got.N, want)
		}
	}
	n, err := docs.CountDocuments(ctx, bson.M{"_id": bson.M{"$regex": "^new-"}})
	if err != nil {
		t.Fatal(err)
	}
	if n != writers/3*rounds {
		t.Fatalf("%d new documents stored, want %d", n, writers/3*rounds)
	}
}
