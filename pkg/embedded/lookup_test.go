package embedded_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
	"go.mongodb.org/mongo-driver/mongo"
)

// guardedCollection is a collection of n documents {_id, version, n} on a
// fresh embedded database.
func guardedCollection(tb testing.TB, n int) *mongo.Collection {
	tb.Helper()
	ctx := context.Background()
	_, c := pooledClient(tb)
	coll := c.Database("guarded").Collection("docs")
	docs := make([]any, n)
	for i := range docs {
		docs[i] = bson.M{"_id": fmt.Sprintf("doc-%05d", i), "version": int64(1), "n": int64(0), "pad": fmt.Sprintf("%0200d", i)}
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		tb.Fatal(err)
	}
	return coll
}

// A filter of an _id and a guard matches by both: the guard still refuses
// a stale version, and the right one changes exactly its document.
func TestAGuardedFilterMatchesByIDAndGuard(t *testing.T) {
	ctx := context.Background()
	coll := guardedCollection(t, 50)
	stale, err := coll.UpdateOne(ctx, bson.M{"_id": "doc-00007", "version": int64(0)}, bson.M{"$set": bson.M{"n": int64(1)}})
	if err != nil || stale.MatchedCount != 0 {
		t.Fatalf("a stale version matched: %+v, %v", stale, err)
	}
	fresh, err := coll.UpdateOne(ctx, bson.M{"_id": "doc-00007", "version": int64(1)}, bson.M{"$set": bson.M{"n": int64(1), "version": int64(2)}})
	if err != nil || fresh.ModifiedCount != 1 {
		t.Fatalf("the current version did not match: %+v, %v", fresh, err)
	}
	changed, err := coll.CountDocuments(ctx, bson.M{"n": int64(1)})
	if err != nil || changed != 1 {
		t.Fatalf("%d documents changed, want 1 (%v)", changed, err)
	}
	var d struct{ Version int64 }
	if err := coll.FindOne(ctx, bson.M{"_id": "doc-00007", "version": int64(2)}).Decode(&d); err != nil || d.Version != 2 {
		t.Fatalf("find by _id and version: %+v, %v", d, err)
	}
	if err := coll.FindOne(ctx, bson.M{"_id": "doc-00007", "version": int64(1)}).Err(); !errors.Is(err, mongo.ErrNoDocuments) {
		t.Fatalf("find by _id and an old version: %v", err)
	}
}

// BenchmarkGuardedUpdate: a version-guarded update ({_id, version}) of the
// newest document of a collection of 100 and of 5,000 documents; its cost
// should not grow with the collection.
func BenchmarkGuardedUpdate(b *testing.B) {
	for _, n := range []int{100, 5000} {
		b.Run(fmt.Sprint("docs=", n), func(b *testing.B) {
			coll := guardedCollection(b, n)
			ctx := context.Background()
			version := int64(1)
			newest := fmt.Sprintf("doc-%05d", n-1) // the last in the table: a scan reads every row
			for b.Loop() {
				res, err := coll.UpdateOne(ctx, bson.M{"_id": newest, "version": version},
					bson.M{"$set": bson.M{"version": version + 1}})
				if err != nil || res.ModifiedCount != 1 {
					b.Fatalf("%+v, %v", res, err)
				}
				version++
			}
		})
	}
}

// BenchmarkInListFind: a find of ten documents by an _id $in in a
// collection of 100 and of 5,000 documents; its cost should not grow with
// the collection.
func BenchmarkInListFind(b *testing.B) {
	for _, n := range []int{100, 5000} {
		b.Run(fmt.Sprint("docs=", n), func(b *testing.B) {
			coll := guardedCollection(b, n)
			ctx := context.Background()
			ids := bson.A{}
			for i := n - 10; i < n; i++ {
				ids = append(ids, fmt.Sprintf("doc-%05d", i))
			}
			for b.Loop() {
				cur, err := coll.Find(ctx, bson.M{"_id": bson.M{"$in": ids}})
				if err != nil {
					b.Fatal(err)
				}
				var got []bson.M
				if err := cur.All(ctx, &got); err != nil || len(got) != 10 {
					b.Fatalf("%d found, %v", len(got), err)
				}
			}
		})
	}
}

// A range of _id between two strings (a rate limit's window of one key) is
// read through the _id column; it finds exactly what the range holds,
// whatever the ids around it hold: characters JSON escapes, a bound that is
// a prefix of an id, ids of other keys and other types.
func TestAnIDRangeFindsExactlyItsDocuments(t *testing.T) {
	ctx := context.Background()
	coll := guardedCollection(t, 3) // doc-00000 to doc-00002, outside every range below
	ids := []string{"k|", "k|0", "k|00", "k|1", "k|1|a", "k|1|~", "k|2", "k|:", "k|<", "k|\"", "k|\\", "k|\x01", "k|é", "k| ",
		"j|5", "l|0", "k", "kk|1", "w|emb_1|0001|a", "w|emb_1|0002|b", "w|emb_2|0001|c"}
	docs := make([]any, 0, len(ids)+1)
	for _, id := range ids {
		docs = append(docs, bson.M{"_id": id})
	}
	docs = append(docs, bson.M{"_id": int64(7)})
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ op1, lo, op2, hi string }{
		{"$gt", "k|", "$lt", "k|:"},
		{"$gte", "k|", "$lte", "k|:"},
		{"$gt", "k|0", "$lt", "k|1|~"},
		{"$gte", "k|1", "$lte", "k|1"},
		{"$gt", "k|", "$lt", "k|\u00ff"},
		{"$gt", "k| ", "$lt", "k|~"},
		{"$gt", "w|emb_1|0000|~", "$lt", "w|emb_1|:"},
		{"$gt", "j", "$lt", "l"},
		{"$gt", "k|<", "$lt", "k|<~"},
	}
	for _, c := range cases {
		var want []string
		for _, id := range ids {
			if (id > c.lo || (c.op1 == "$gte" && id == c.lo)) && (id < c.hi || (c.op2 == "$lte" && id == c.hi)) {
				want = append(want, id)
			}
		}
		sort.Strings(want)
		cur, err := coll.Find(ctx, bson.M{"_id": bson.M{c.op1: c.lo, c.op2: c.hi}})
		if err != nil {
			t.Fatal(err)
		}
		var got []struct {
			ID string `bson:"_id"`
		}
		if err := cur.All(ctx, &got); err != nil {
			t.Fatal(err)
		}
		gotIDs := make([]string, len(got))
		for i, g := range got {
			gotIDs[i] = g.ID
		}
		sort.Strings(gotIDs)
		if fmt.Sprintf("%q", gotIDs) != fmt.Sprintf("%q", want) {
			t.Errorf("_id %s %q %s %q: found %q, want %q", c.op1, c.lo, c.op2, c.hi, gotIDs, want)
		}
	}
}

// An _id $in of strings and ObjectIDs is read through the _id column:
// finds, removals and updates by such a list touch exactly its documents,
// with other fields of the filter still applied.
func TestAnIDInListFindsExactlyItsDocuments(t *testing.T) {
	ctx := context.Background()
	coll := guardedCollection(t, 20) // doc-00000 to doc-00019
	oid := primitive.NewObjectID()
	odd := []any{"k|\"q\"", "k|\\", "k|é", oid, int64(7)}
	for _, id := range odd {
		if _, err := coll.InsertOne(ctx, bson.M{"_id": id, "version": int64(1), "n": int64(0)}); err != nil {
			t.Fatal(err)
		}
	}
	found := func(filter bson.M) []string {
		t.Helper()
		cur, err := coll.Find(ctx, filter)
		if err != nil {
			t.Fatal(err)
		}
		var got []bson.M
		if err := cur.All(ctx, &got); err != nil {
			t.Fatal(err)
		}
		ids := make([]string, len(got))
		for i, g := range got {
			ids[i] = fmt.Sprint(g["_id"])
		}
		sort.Strings(ids)
		return ids
	}
	cases := []struct {
		filter bson.M
		want   []string
	}{
		{bson.M{"_id": bson.M{"$in": bson.A{"doc-00003", "doc-00011", "missing"}}}, []string{"doc-00003", "doc-00011"}},
		{bson.M{"_id": bson.M{"$in": bson.A{"k|\"q\"", "k|\\", "k|é", oid}}}, []string{"k|\"q\"", "k|\\", "k|é", fmt.Sprint(oid)}},
		{bson.M{"_id": bson.M{"$in": bson.A{"doc-00001", int64(7)}}}, []string{"7", "doc-00001"}}, // a number: not pushed down, same answer
		{bson.M{"_id": bson.M{"$in": bson.A{"doc-00001", "doc-00002"}}, "version": int64(2)}, []string{}},
		{bson.M{"_id": bson.M{"$in": bson.A{}}}, []string{}},
	}
	for _, c := range cases {
		sort.Strings(c.want)
		if got := found(c.filter); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", c.want) {
			t.Errorf("%v: found %q, want %q", c.filter, got, c.want)
		}
	}
	up, err := coll.UpdateMany(ctx, bson.M{"_id": bson.M{"$in": bson.A{"doc-00004", "doc-00005", "k|é"}}}, bson.M{"$set": bson.M{"n": int64(9)}})
	if err != nil || up.ModifiedCount != 3 {
		t.Fatalf("update by list: %+v, %v", up, err)
	}
	if got := found(bson.M{"n": int64(9)}); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", []string{"doc-00004", "doc-00005", "k|é"}) {
		t.Fatalf("updated %q", got)
	}
	del, err := coll.DeleteMany(ctx, bson.M{"_id": bson.M{"$in": bson.A{"doc-00004", "doc-00006", oid, "missing"}}})
	if err != nil || del.DeletedCount != 3 {
		t.Fatalf("delete by list: %+v, %v", del, err)
	}
	if n, err := coll.CountDocuments(ctx, bson.M{}); err != nil || n != 20+5-3 {
		t.Fatalf("%d documents left (%v), want %d", n, err, 20+5-3)
	}
}
