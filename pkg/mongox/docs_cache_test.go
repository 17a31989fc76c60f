package mongox_test

import (
	"errors"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
)

// A change reads its document from the cache Written keeps, not from the
// database; when a write finds the cache wrong (here the document was
// removed behind its back) the database answers until a write lands.
func TestDocsCacheAnswersReadsUntilAWriteFindsItWrong(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	docs := newCounters(t, kit.DB)
	var mu sync.Mutex
	held := map[string]counter{}
	docs.Written = func(id string, c *counter) {
		mu.Lock()
		defer mu.Unlock()
		if c == nil {
			delete(held, id)
		} else {
			held[id] = *c
		}
	}
	docs.Cache = func(id string) (counter, int64, bool, bool) {
		mu.Lock()
		defer mu.Unlock()
		c, found := held[id]
		return c, c.Version, found, true
	}
	increment := func(c *counter) ([]note, error) { c.Count++; return nil, nil }

	if _, err := docs.Insert(ctx, "a", counter{Owner: "ada", Count: 1}); err != nil {
		t.Fatal(err)
	}
	// Out of band, so that the answer shows where the change read from.
	if _, err := docs.Collection().UpdateOne(ctx, bson.M{"_id": "a"}, bson.M{"$set": bson.M{"count": 100}}); err != nil {
		t.Fatal(err)
	}
	if c, err := docs.Update(ctx, "a", increment); err != nil || c.Count != 2 {
		t.Fatalf("update read from the cache: count %d (%v), want 2 (the database held 100)", c.Count, err)
	}

	if _, err := docs.Collection().DeleteOne(ctx, bson.M{"_id": "a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := docs.Update(ctx, "a", increment); !errors.Is(err, mongox.ErrNotFound) {
		t.Fatalf("an update the cache misled: %v, want not found from the database", err)
	}
	if _, err := docs.Get(ctx, "a"); !errors.Is(err, mongox.ErrNotFound) {
		t.Fatalf("a read after the miss: %v, want not found (the cache still holds the row)", err)
	}

	if _, err := docs.Insert(ctx, "a", counter{Owner: "ada", Count: 5}); err != nil {
		t.Fatal(err)
	}
	if _, err := docs.Collection().UpdateOne(ctx, bson.M{"_id": "a"}, bson.M{"$set": bson.M{"count": 100}}); err != nil {
		t.Fatal(err)
	}
	if c, err := docs.Update(ctx, "a", increment); err != nil || c.Count != 6 {
		t.Fatalf("once a write landed the cache answers again: count %d (%v), want 6", c.Count, err)
	}
}
