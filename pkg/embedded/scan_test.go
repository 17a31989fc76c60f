package embedded

import (
	"bytes"
	"context"
	"math"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// Scan must give, byte for byte, the documents FerretDB's own find gives:
// the in-memory copies decode them as they would a find's answer. The
// documents cover every BSON type FerretDB v1 stores, nested and in
// arrays, nulls among them, strings that JSON must escape, and the
// numbers whose text is easy to get wrong.
func TestScanGivesWhatFindGives(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	m, err := StartMongo(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	client, err := mongo.Connect(ctx, options.Client().ApplyURI(m.URI))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Disconnect(ctx) }()
	coll := client.Database("scancheck").Collection("docs")
	at := time.Date(2026, 11, 27, 8, 30, 1, 123_000_000, time.UTC)
	oid, _ := primitive.ObjectIDFromHex("65f0a1b2c3d4e5f601234567")
	docs := []any{
		bson.D{{Key: "_id", Value: "plain"}, {Key: "s", Value: "text"}, {Key: "n", Value: int32(-7)}, {Key: "l", Value: int64(math.MaxInt64)},
			{Key: "f", Value: 0.1}, {Key: "big", Value: 1e300}, {Key: "neg", Value: math.Copysign(0, -1)}, {Key: "whole", Value: 3.0},
			{Key: "t", Value: true}, {Key: "no", Value: false}, {Key: "at", Value: at}, {Key: "before", Value: time.UnixMilli(-1).UTC()}},
		bson.D{{Key: "_id", Value: "escapes"}, {Key: "q", Value: "quote \" backslash \\ slash / newline \n tab \t nul-free \u0001"},
			{Key: "uni", Value: "héllo wörld ✓ 😀"}, {Key: "html", Value: "<a href=\"x\">&amp;</a>"}, {Key: "empty", Value: ""}},
		bson.D{{Key: "_id", Value: "nested"}, {Key: "doc", Value: bson.D{{Key: "a", Value: int32(1)}, {Key: "b", Value: bson.D{{Key: "c", Value: "deep"}, {Key: "d", Value: bson.A{}}}}}},
			{Key: "arr", Value: bson.A{"x", int32(2), int64(3), 4.5, nil, bson.D{{Key: "in", Value: at}}, bson.D{{Key: "inner", Value: bson.A{false, "y"}}}}},
			{Key: "emptydoc", Value: bson.D{}}, {Key: "emptyarr", Value: bson.A{}}, {Key: "null", Value: nil},
			{Key: "nulls", Value: bson.D{{Key: "x", Value: nil}, {Key: "y", Value: bson.A{nil, nil}}}}},
		bson.D{{Key: "_id", Value: "rare"}, {Key: "oid", Value: oid}, {Key: "bin", Value: primitive.Binary{Subtype: 0, Data: []byte{0, 1, 2, 250}}},
			{Key: "uuid", Value: primitive.Binary{Subtype: 4, Data: bytes.Repeat([]byte{7}, 16)}},
			{Key: "old", Value: primitive.Binary{Subtype: 2, Data: []byte{9, 8, 7}}},
			{Key: "re", Value: primitive.Regex{Pattern: "^a.*b$", Options: "i"}}, {Key: "ts", Value: primitive.Timestamp{T: 1700000000, I: 42}}},
		bson.D{{Key: "_id", Value: oid}, {Key: "keyed by", Value: "an ObjectID"}},
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	// an update rewrites the stored text: read after it too
	if _, err := coll.UpdateOne(ctx, bson.M{"_id": "plain"}, bson.M{"$set": bson.M{"added": bson.A{int32(1), "two"}}}); err != nil {
		t.Fatal(err)
	}
	cur, err := coll.Find(ctx, bson.M{})
	if err != nil {
		t.Fatal(err)
	}
	var want []bson.Raw
	for cur.Next(ctx) {
		want = append(want, append(bson.Raw(nil), cur.Current...))
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	var got []bson.Raw
	if err := m.Scan(ctx, "scancheck", "docs", func(doc bson.Raw) error {
		got = append(got, append(bson.Raw(nil), doc...))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(want) != len(docs) {
		t.Fatalf("scanned %d documents, found %d, inserted %d", len(got), len(want), len(docs))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("document %d:\n scan %s\n find %s", i, got[i], want[i])
		}
	}

	// nothing there is no document, as for a find
	for _, where := range [][2]string{{"scancheck", "none"}, {"nodb", "docs"}} {
		n := 0
		if err := m.Scan(ctx, where[0], where[1], func(bson.Raw) error { n++; return nil }); err != nil || n != 0 {
			t.Errorf("scan of %s.%s: %d documents, %v", where[0], where[1], n, err)
		}
	}
}

// A row that is not what FerretDB writes is an error, never a document
// with a field missing or mistyped.
func TestToBSONRefusesMalformedRows(t *testing.T) {
	for _, row := range []string{
		`{"_id":"a"}`, // no schema
		`{"$s":{"$k":["_id"],"p":{"_id":{"t":"string"}}},"_id":"a","extra":1}`,
		`{"$s":{"$k":["_id","n"],"p":{"_id":{"t":"string"},"n":{"t":"int"}}},"_id":"a","n":"x"}`,
		`{"$s":{"$k":["_id","n"],"p":{"_id":{"t":"string"},"n":{"t":"int"}}},"_id":"a","n":3000000000}`,
		`{"$s":{"$k":["_id","a"],"p":{"_id":{"t":"string"},"a":{"t":"array","i":[{"t":"int"}]}}},"_id":"a","a":[1,2]}`,
		`{"$s":{"$k":["_id"],"p":{"_id":{"t":"string"}}},"_id":"a"`,
		`{"$s":{"$k":["_id"],"p":{"_id":{"t":"uuid"}}},"_id":"a"}`,
	} {
		if doc, err := (schemas{}).toBSON(nil, []byte(row)); err == nil {
			t.Errorf("%s: read as %s", row, bson.Raw(doc))
		}
	}
}
