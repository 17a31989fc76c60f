package embedded

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
)

// passDatabase is the database "pass" on a fresh embedded FerretDB with no
// background pass (the tests run it), and the path of its file.
func passDatabase(t *testing.T) (*mongo.Database, string) {
	t.Helper()
	dir := t.TempDir()
	_, c := startConnected(t, dir, 0)
	return c.Database("pass"), filepath.Join(dir, "pass.sqlite")
}

// plan is SQLite's plan for FerretDB's find of filter in coll, as the
// explain command reports it.
func plan(t *testing.T, coll *mongo.Collection, filter bson.D) string {
	t.Helper()
	var res bson.Raw
	cmd := bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: coll.Name()}, {Key: "filter", Value: filter}}}}
	if err := coll.Database().RunCommand(context.Background(), cmd).Decode(&res); err != nil {
		t.Fatal(err)
	}
	return res.Lookup("queryPlanner").String()
}

// A lookup by _id, alone or with a guard, searches FerretDB's own unique
// _id index: no second index is needed, so none is made.
func TestLookupsByIDSearchFerretDBsOwnIndex(t *testing.T) {
	db, path := passDatabase(t)
	coll := db.Collection("docs")
	if _, err := coll.InsertOne(context.Background(), bson.M{"_id": "a", "version": 1}); err != nil {
		t.Fatal(err)
	}
	for _, filter := range []bson.D{
		{{Key: "_id", Value: "a"}},
		{{Key: "_id", Value: "a"}, {Key: "version", Value: 1}},
	} {
		p := plan(t, coll, filter)
		if !strings.Contains(p, "USING INDEX") || !strings.Contains(p, "__id_") {
			t.Fatalf("the find of %v does not search the _id index: %s", filter, p)
		}
	}
	if n := spareIndexes(t, path); n != 0 {
		t.Fatalf("%d second _id indexes made", n)
	}
}

// A data directory an earlier version wrote holds a second _id index on
// every table; the next start drops them, and the documents stay.
func TestAnEarlierVersionsSecondIDIndexIsDroppedAtStart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	first, c := startConnected(t, dir, 0)
	coll := c.Database("pass").Collection("docs")
	if _, err := coll.InsertOne(ctx, bson.M{"_id": "a", "n": 1}); err != nil {
		t.Fatal(err)
	}
	_ = c.Disconnect(ctx)
	first.Stop()

	path := filepath.Join(dir, "pass.sqlite")
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	var table string
	if err := raw.QueryRow(`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'docs%'`).Scan(&table); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(fmt.Sprintf(`CREATE INDEX "%s_sw_id" ON "%s" (_ferretdb_sjson->'$._id')`, table, table)); err != nil {
		t.Fatal(err)
	}
	_ = raw.Close()
	if n := spareIndexes(t, path); n != 1 {
		t.Fatalf("the earlier version's index was not made: %d", n)
	}

	_, c = startConnected(t, dir, 0)
	if n := spareIndexes(t, path); n != 0 {
		t.Fatalf("%d second _id indexes left after the start", n)
	}
	var got bson.M
	if err := c.Database("pass").Collection("docs").FindOne(ctx, bson.M{"_id": "a"}).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got["n"]) != "1" {
		t.Fatalf("the document changed: %v", got)
	}
}

// spareIndexes counts the second _id indexes in the file at path.
func spareIndexes(t *testing.T, path string) int {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var n int
	if err := raw.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name LIKE '%\_sw\_id' ESCAPE '\'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// The background pass checkpoints a database's log only when another
// connection committed since its last complete checkpoint.
func TestThePassCheckpointsOnlyAfterWrites(t *testing.T) {
	ctx := context.Background()
	db, path := passDatabase(t)
	coll := db.Collection("docs")
	if _, err := coll.InsertOne(ctx, bson.M{"_id": "a"}); err != nil {
		t.Fatal(err)
	}
	open := openFiles{}
	defer open.close()
	checkpointed := func() bool {
		t.Helper()
		did, err := open.checkpointFile(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		return did
	}
	if !checkpointed() {
		t.Fatal("the first pass must checkpoint")
	}
	if checkpointed() {
		t.Fatal("a pass over a file nobody wrote to since checkpointed it")
	}
	if _, err := coll.InsertOne(ctx, bson.M{"_id": "b"}); err != nil {
		t.Fatal(err)
	}
	if !checkpointed() {
		t.Fatal("a write must be checkpointed by the next pass")
	}
	if checkpointed() {
		t.Fatal("the write was checkpointed twice")
	}
}
