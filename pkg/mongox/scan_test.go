package mongox_test

import (
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
)

// ScanAll gives what FindAll with the same projection gives: fields left
// out, or only those kept (with _id), and on a Shared database, or with a
// projection it does not read itself, it is FindAll.
func TestScanAllGivesWhatFindAllGives(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	coll := kit.DB.Collection("scanned")
	if _, err := coll.InsertMany(ctx, []any{
		bson.M{"_id": "a", "name": "first", "rank": 1, "_outbox": bson.A{bson.M{"id": "e1"}}, "deep": bson.M{"x": 1, "y": 2}},
		bson.M{"_id": "b", "name": "second", "rank": 2, "deep": bson.M{"x": 3}},
	}); err != nil {
		t.Fatal(err)
	}
	type doc struct {
		ID     string   `bson:"_id"`
		Name   string   `bson:"name"`
		Rank   int      `bson:"rank"`
		Outbox []bson.M `bson:"_outbox"`
		Deep   bson.M   `bson:"deep"`
	}
	f := &testkit.Finder{DB: kit.DB}
	db := mongox.NewDB(kit.DB.Database, kit.DB.Mode())
	db.UseScanner(f)
	m := mongox.MirrorOf(db, "scanned", func(d *doc) string { return d.ID })
	if m == nil {
		m = mongox.NewMirror(func(d *doc) string { return d.ID }) // a Shared database: ScanAll finds
	}
	for _, c := range []struct {
		name       string
		projection bson.M
		scanned    bool
	}{
		{"everything", nil, true},
		{"without the outbox", bson.M{"_outbox": 0}, true},
		{"only name and rank", bson.M{"name": 1, "rank": 1}, true},
		{"a nested field", bson.M{"deep.y": 0}, false},
	} {
		before := f.Scans
		got, err := mongox.ScanAll[doc](ctx, m, coll, c.projection)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		opts := options.Find()
		if c.projection != nil {
			opts.SetProjection(c.projection)
		}
		want, err := mongox.FindAll[doc](ctx, coll, bson.M{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: ScanAll %+v, FindAll %+v", c.name, got, want)
		}
		if scanned := f.Scans > before; scanned != (c.scanned && db.Exclusive()) {
			t.Errorf("%s: scanned %v on a %s database", c.name, scanned, db.Mode())
		}
	}
}

// A scan that fails gives way to the find: the copy loads what the
// database holds, nothing of the failed scan.
func TestScanAllFallsBackToTheFindWhenTheScanFails(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	coll := kit.DB.Collection("scanned")
	if _, err := coll.InsertMany(ctx, []any{bson.M{"_id": "a", "n": 1}, bson.M{"_id": "b", "n": 2}}); err != nil {
		t.Fatal(err)
	}
	type doc struct {
		ID string `bson:"_id"`
		N  int    `bson:"n"`
	}
	b := &testkit.Finder{DB: kit.DB, Fail: true}
	db := mongox.NewDB(kit.DB.Database, kit.DB.Mode())
	db.UseScanner(b)
	m := mongox.MirrorOf(db, "scanned", func(d *doc) string { return d.ID })
	if m == nil {
		m = mongox.NewMirror(func(d *doc) string { return d.ID })
	}
	got, err := mongox.ScanAll[doc](ctx, m, coll, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []doc{{"a", 1}, {"b", 2}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if db.Exclusive() && b.Scans != 1 {
		t.Fatalf("%d scans, want 1 before the find", b.Scans)
	}
}
