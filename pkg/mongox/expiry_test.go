package mongox_test

import (
	"sort"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
)

// On an exclusive database the sweeps filter by expires_at while an
// earlier process's documents may still be unexpired, and once more after;
// later ones delete, by _id, the expired documents this process tracked,
// and nothing they did not track. On a shared database every sweep
// filters. The times are a day ahead, where MongoDB's own TTL pass (on a
// real server) leaves the documents alone; the sweeps are told the time.
func TestAnExpirySweepsWhatItTrackedOnAnExclusiveDatabase(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	base := time.Now().Add(24 * time.Hour).Truncate(time.Minute)
	past, future := base.Add(-time.Hour).UTC(), base.Add(time.Hour).UTC()
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
	// A collection empty at the start holds nothing to filter for.
	fresh, err := mongox.NewExpiry(ctx, db, db.Collection("fresh"), 25*time.Hour, nil)
	if err != nil {
		t.Fatal(err)
	}
	fresh.Track("tracked", past)
	insert("fresh", "tracked", past)
	insert("fresh", "untracked", past)
	sweep(fresh, base, 1)
	if got := remaining("fresh"); len(got) != 1 || got[0] != "untracked" {
		t.Fatalf("a fresh collection's first sweep: %v, want [untracked]", got)
	}

	// Documents of an earlier process may live up to 25 hours after this
	// start: the sweeps filter until then.
	insert("exclusive", "earlier", future)
	e, err := mongox.NewExpiry(ctx, db, db.Collection("exclusive"), 25*time.Hour, nil)
	if err != nil {
		t.Fatal(err)
	}
	insert("exclusive", "left", past)
	sweep(e, base, 1)
	insert("exclusive", "left-later", base.Add(30*time.Minute))
	sweep(e, base.Add(2*time.Hour), 2) // past the earlier documents' lives: filters once more
	for id, expires := range map[string]time.Time{"gone": base.Add(2 * time.Hour), "kept": base.Add(3 * time.Hour), "this-minute": base.Add(3*time.Hour + 30*time.Second)} {
		e.Track(id, expires)
		insert("exclusive", id, expires)
	}
	insert("exclusive", "stray", past) // never tracked
	sweep(e, base.Add(2*time.Hour+time.Minute), 1)
	if got := remaining("exclusive"); len(got) != 3 || got[0] != "kept" || got[1] != "stray" || got[2] != "this-minute" {
		t.Fatalf("after a tracked sweep: %v, want [kept stray this-minute]", got)
	}
	// Inside a minute, what expired before the sweep goes and the rest of
	// the minute stays.
	sweep(e, base.Add(3*time.Hour+15*time.Second), 1)
	if got := remaining("exclusive"); len(got) != 2 || got[0] != "stray" || got[1] != "this-minute" {
		t.Fatalf("inside the minute: %v, want [stray this-minute]", got)
	}
	sweep(e, base.Add(3*time.Hour+time.Minute), 1)
	if got := remaining("exclusive"); len(got) != 1 || got[0] != "stray" {
		t.Fatalf("after the tracked documents expired: %v, want [stray]", got)
	}

	shared := kit.SharedDB()
	s, err := mongox.NewExpiry(ctx, shared, shared.Collection("shared"), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		s.Track("tracked", past)
		insert("shared", "tracked", past)
		insert("shared", "untracked", past)
		insert("shared", "later", future)
		sweep(s, base, 2)
		if got := remaining("shared"); len(got) != 1 || got[0] != "later" {
			t.Fatalf("shared, sweep %d: %v, want [later]", round+1, got)
		}
		if _, err := kit.DB.Collection("shared").DeleteMany(ctx, bson.M{}); err != nil {
			t.Fatal(err)
		}
	}
}
