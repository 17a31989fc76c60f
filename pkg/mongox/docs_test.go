package mongox_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
)

type counter struct {
	ID      string   `bson:"_id"`
	Owner   string   `bson:"owner"`
	Count   int      `bson:"count"`
	Seen    []string `bson:"seen"`
	Version int64    `bson:"version"`
}

type note struct {
	What string `bson:"what"`
}

func newCounters(t *testing.T, db *mongox.DB) *mongox.Docs[counter, note] {
	t.Helper()
	docs := mongox.NewDocs[counter, note](db, "counters", nil)
	if err := mongox.EnsureIndexes(context.Background(), docs.Collection(), mongox.Index("owner", true, bson.E{Key: "owner", Value: 1})); err != nil {
		t.Fatal(err)
	}
	return docs
}

func outbox(t *testing.T, docs *mongox.Docs[counter, note], id string) []string {
	t.Helper()
	var d struct {
		Outbox []note `bson:"_outbox"`
	}
	if err := docs.Collection().FindOne(context.Background(), bson.M{"_id": id}).Decode(&d); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range d.Outbox {
		out = append(out, n.What)
	}
	return out
}

func TestDocsCreateUpdateDelete(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	docs := newCounters(t, kit.DB)

	c, err := docs.Create(ctx, "cnt", func(id string) (counter, []note, error) {
		return counter{ID: id, Owner: "ada", Version: 99}, []note{{"created"}}, nil
	})
	if err != nil || len(c.ID) != len("cnt_")+8 || c.Version != 1 {
		t.Fatalf("create: %+v %v (want a fresh cnt_ id at version 1 whatever the caller set)", c, err)
	}
	_, err = docs.Create(ctx, "cnt", func(id string) (counter, []note, error) { return counter{ID: id, Owner: "ada"}, nil, nil })
	if !errors.Is(err, mongox.ErrDuplicate) {
		t.Fatalf("a second owner must be ErrDuplicate, got %v", err)
	}
	if _, err := docs.Insert(ctx, c.ID, counter{Owner: "bob"}); !errors.Is(err, mongox.ErrDuplicate) {
		t.Fatalf("inserting a taken _id must be ErrDuplicate, got %v", err)
	}

	after, err := docs.Update(ctx, c.ID, func(d *counter) ([]note, error) {
		d.Count++
		return []note{{"counted"}}, nil
	})
	if err != nil || after.Count != 1 || after.Version != 2 || after.Owner != "ada" {
		t.Fatalf("update: %+v %v", after, err)
	}
	if got := outbox(t, docs, c.ID); fmt.Sprint(got) != "[created counted]" {
		t.Fatalf("outbox keeps every event in order, got %v", got)
	}

	refused := errors.New("refused")
	if _, err := docs.Update(ctx, c.ID, func(d *counter) ([]note, error) { d.Count = 100; return nil, refused }); !errors.Is(err, refused) {
		t.Fatalf("the change's error comes back as it is: %v", err)
	}
	same, err := docs.Update(ctx, c.ID, func(d *counter) ([]note, error) { d.Count = 100; return nil, mongox.ErrNoChange })
	if err != nil || same.Count != 100 {
		t.Fatalf("ErrNoChange returns the document as changed in memory without error: %+v %v", same, err)
	}
	stored, err := docs.Get(ctx, c.ID)
	if err != nil || stored.Count != 1 || stored.Version != 2 {
		t.Fatalf("a refused change or no change writes nothing: %+v %v", stored, err)
	}

	if _, err := docs.Update(ctx, "cnt_00000000", func(*counter) ([]note, error) { return nil, nil }); !errors.Is(err, mongox.ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
	if err := docs.Delete(ctx, c.ID, func(d *counter) error {
		if d.Count != 1 {
			return refused
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := docs.Get(ctx, c.ID); !errors.Is(err, mongox.ErrNotFound) {
		t.Fatalf("deleted: %v", err)
	}
}

// Racing writers in one process: every increment lands, each exactly once.
func TestDocsRacingWritersLoseNothing(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	docs := newCounters(t, kit.DB)
	c, err := docs.Insert(ctx, "c1", counter{Owner: "ada"})
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 8, 10
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				_, err := docs.Update(ctx, c.ID, func(d *counter) ([]note, error) {
					d.Count++
					d.Seen = append(d.Seen, fmt.Sprintf("%d/%d", w, i))
					return []note{{fmt.Sprintf("%d/%d", w, i)}}, nil
				})
				if err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	got, err := docs.Get(ctx, c.ID)
	if err != nil || got.Count != writers*each || len(got.Seen) != writers*each || got.Version != writers*each+1 {
		t.Fatalf("after %d racing increments: count %d, %d seen, version %d (%v)", writers*each, got.Count, len(got.Seen), got.Version, err)
	}
	if n := len(outbox(t, docs, c.ID)); n != writers*each {
		t.Fatalf("want %d outbox entries, got %d", writers*each, n)
	}
}

// Another replica writes between this one's read and write: on a shared
// database the version guard notices and the change is decided again on the
// replica's result; on an exclusive one there is no other writer by design.
func TestDocsVersionClashRetriesOnTheWinnersResult(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	shared := mongox.NewDB(kit.DB.Database, mongox.Shared)
	docs := newCounters(t, shared)
	replica := newCounters(t, mongox.NewDB(kit.DB.Database, mongox.Shared))
	c, err := docs.Insert(ctx, "c1", counter{Owner: "ada"})
	if err != nil {
		t.Fatal(err)
	}
	interleaved := 0
	docs.BeforeWrite = func(ctx context.Context, id string) {
		if interleaved < 2 {
			interleaved++
			if _, err := replica.Update(ctx, id, func(d *counter) ([]note, error) { d.Count += 10; return []note{{"replica"}}, nil }); err != nil {
				t.Error(err)
			}
		}
	}
	runs := 0
	after, err := docs.Update(ctx, c.ID, func(d *counter) ([]note, error) {
		runs++
		d.Count++
		return []note{{"mine"}}, nil
	})
	if err != nil || runs != 3 || after.Count != 21 || after.Version != 4 {
		t.Fatalf("want the change run 3 times and applied once on top of both replica writes: runs %d, %+v, %v", runs, after, err)
	}
	if got := outbox(t, docs, c.ID); fmt.Sprint(got) != "[replica replica mine]" {
		t.Fatalf("outbox: %v", got)
	}

	docs.BeforeWrite = func(ctx context.Context, id string) {
		_, _ = replica.Update(ctx, id, func(d *counter) ([]note, error) { d.Count++; return nil, nil })
	}
	if _, err := docs.Update(ctx, c.ID, func(d *counter) ([]note, error) { return nil, nil }); !errors.Is(err, mongox.ErrVersionClash) {
		t.Fatalf("a document that changes under every attempt ends in ErrVersionClash, got %v", err)
	}
}

func TestDBGuardedFollowsTheMode(t *testing.T) {
	kit := testkit.New(t)
	guard := bson.M{"version": 3}
	if f := mongox.NewDB(kit.DB.Database, mongox.Exclusive).Guarded("x", guard); len(f) != 1 || f["_id"] != "x" {
		t.Fatalf("exclusive: an exact _id filter, got %v", f)
	}
	if f := mongox.NewDB(kit.DB.Database, mongox.Shared).Guarded("x", guard); len(f) != 2 || f["version"] != 3 {
		t.Fatalf("shared: _id plus the guard, got %v", f)
	}
}
