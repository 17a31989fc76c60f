package mongox_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
)

// While a host builds, a Mirror's Load hands its scan to the background
// and returns; a read or a write of the copy waits until the copy is
// filled, the copies equal scans in place, a failed scan is Wait's error,
// and a Load after Wait scans in place again.
func TestBackgroundLoadsFillCopiesAsScansInPlace(t *testing.T) {
	kit := testkit.New(t)
	if kit.DB.Mode() != mongox.Exclusive {
		t.Log("a shared database keeps no copies: nothing to load")
		return
	}
	ctx := kit.Ctx()
	for _, coll := range []string{"a", "b", "c"} {
		docs := make([]any, 50)
		for i := range docs {
			docs[i] = bson.M{"_id": fmt.Sprintf("%s%03d", coll, i), "rank": i}
		}
		if _, err := kit.DB.Collection(coll).InsertMany(ctx, docs); err != nil {
			t.Fatal(err)
		}
	}
	type doc struct {
		ID   string `bson:"_id"`
		Rank int    `bson:"rank"`
	}
	id := func(d *doc) string { return d.ID }
	scan := func(coll string) func(context.Context) ([]doc, error) {
		return func(ctx context.Context) ([]doc, error) {
			return mongox.FindAll[doc](ctx, kit.DB.Collection(coll), bson.M{})
		}
	}
	db := mongox.NewDB(kit.DB.Database, mongox.Exclusive)
	loads := mongox.NewLoads(2)
	db.LoadInBackground(loads)

	a, b := mongox.MirrorOf(db, "a", id), mongox.MirrorOf(db, "b", id)
	release := make(chan struct{})
	if err := a.Load(ctx, func(ctx context.Context) ([]doc, error) {
		<-release // the scan of a is still running when Load returns
		return scan("a")(ctx)
	}); err != nil {
		t.Fatal(err)
	}
	if err := b.Load(ctx, scan("b")); err != nil {
		t.Fatal(err)
	}
	read, wrote := make(chan int), make(chan struct{})
	go func() { read <- a.Len() }()
	go func() { a.Put(doc{ID: "a999", Rank: 999}); close(wrote) }()
	select {
	case n := <-read:
		t.Fatalf("a read of a copy being filled answered %d rows", n)
	case <-wrote:
		t.Fatal("a write to a copy being filled went ahead of the scan")
	case <-time.After(50 * time.Millisecond): // the proof of a wait that never ends is a bounded look
	}
	close(release)
	if n := <-read; n != 50 {
		t.Fatalf("a read that waited for the scan saw %d rows, want 50", n)
	}
	<-wrote
	failed := mongox.MirrorOf(db, "nothing", id)
	if err := failed.Load(ctx, func(context.Context) ([]doc, error) { return nil, errors.New("disk on fire") }); err != nil {
		t.Fatalf("a background Load returned %v", err)
	}
	if err := loads.Wait(); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("Wait after a failed scan: %v", err)
	}
	if r, ok := a.Get("a999"); !ok || r.Rank != 999 || a.Len() != 51 {
		t.Fatalf("the write made during the scan: %+v %v, %d rows", r, ok, a.Len())
	}
	// b equals a scan in place, and a Load after Wait is one
	inPlace := mongox.NewMirror(id)
	if err := inPlace.Load(ctx, scan("b")); err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		k := fmt.Sprintf("b%03d", i)
		got, ok := b.Get(k)
		want, _ := inPlace.Get(k)
		if !ok || *got != *want {
			t.Fatalf("row %s: %+v from the background, %+v in place", k, got, want)
		}
	}
	c := mongox.MirrorOf(db, "c", id)
	if err := c.Load(ctx, scan("c")); err != nil || c.Len() != 50 {
		t.Fatalf("a Load after Wait: %v, %d rows", err, c.Len())
	}
}
