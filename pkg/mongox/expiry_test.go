package mongox_test

import (
	"sort"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
)

// On an exclusive database the first sweep filters by expires_at (an
// earlier process's documents); later ones delete, by _id, the expired
// documents this process tracked, and nothing they did not track. On a
// shared database every sweep filters.
func TestAnExpirySweepsWhatItTrackedOnAnExclusiveDatabase(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	now := time.Now()
	past, future := now.Add(-time.Hour).UTC(), now.Add(time.Hour).UTC()
	remaining := func(coll string) []string {
		t.Helper()
		var docs []struct {
			ID string `bson:"_id"`
		}
		cur, err := kit.DB.Collection(coll).Find(ctx, bson.M{})
		if err == nil {
			err = cur.All(ctx, &docs)
		}
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, d := range docs {
			ids = append(ids, d.ID)
		}
		sort.Strings(ids)
		return ids
	}
	insert := func(coll, id string, expires time.Time) {
		t.Helper()
		if _, err := kit.DB.Collection(coll).InsertOne(ctx, bson.M{"_id": id, mongox.ExpiresField: expires}); err != nil {
			t.Fatal(err)
		}
	}
	sweep := func(e *mongox.Expiry, at time.Time, want int64) {
		t.Helper()
		if n, err := e.Sweep(ctx, at); err != nil || n != want {
			t.Fatalf("sweep at %v: %d deleted (%v), want %d", at, n, err, want)
		}
	}

	db := kit.ExclusiveDB()
	e, err := mongox.NewExpiry(ctx, db, db.Collection("exclusive"), nil)
	if err != nil {
		t.Fatal(err)
	}
	insert("exclusive", "left", past)
	sweep(e, now, 1) // the first sweep filters
	for _, id := range []string{"gone", "kept"} {
		expires := map[string]time.Time{"gone": past, "kept": future}[id]
		e.Track(id, expires)
		insert("exclusive", id, expires)
	}
	insert("exclusive", "stray", past) // never tracked
	sweep(e, now, 1)
	if got := remaining("exclusive"); len(got) != 2 || got[0] != "kept" || got[1] != "stray" {
		t.Fatalf("after a tracked sweep: %v, want [kept stray]", got)
	}
	sweep(e, now.Add(2*time.Hour), 1)
	if got := remaining("exclusive"); len(got) != 1 || got[0] != "stray" {
		t.Fatalf("after the tracked document expired: %v, want [stray]", got)
	}

	shared := kit.SharedDB()
	s, err := mongox.NewExpiry(ctx, shared, shared.Collection("shared"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		s.Track("tracked", past)
		insert("shared", "tracked", past)
		insert("shared", "untracked", past)
		insert("shared", "later", future)
		sweep(s, now, 2)
		if got := remaining("shared"); len(got) != 1 || got[0] != "later" {
			t.Fatalf("shared, sweep %d: %v, want [later]", round+1, got)
		}
		if _, err := kit.DB.Collection("shared").DeleteMany(ctx, bson.M{}); err != nil {
			t.Fatal(err)
		}
	}
}
