package embedded

import (
	"context"
	"database/sql"
	"path/filepath"
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

// The background pass indexes a database's new tables, and reads its
// schema only when the schema moved: a pass over unchanged files reads
// none, and a collection made later is indexed by the next pass.
func TestTheIndexPassReadsASchemaOnlyWhenItMoved(t *testing.T) {
	ctx := context.Background()
	db, path := passDatabase(t)
	if _, err := db.Collection("first").InsertOne(ctx, bson.M{"_id": "a"}); err != nil {
		t.Fatal(err)
	}
	open := openFiles{}
	defer open.close()
	passDid := func() passDid {
		t.Helper()
		did, err := open.indexFile(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		return did
	}
	pass := func() bool { t.Helper(); return passDid().schemaRead }
	indexed := func(table string) bool {
		t.Helper()
		raw, err := sql.Open("sqlite", "file:"+path)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		var n int
		if err := raw.QueryRow(`SELECT count(*) FROM sqlite_master t JOIN sqlite_master i
			ON i.type = 'index' AND i.name = t.name || '_sw_id' WHERE t.type = 'table' AND t.name LIKE ? || '%'`, table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}

	if !pass() || !indexed("first") {
		t.Fatal("the first pass must read the schema and index the collection")
	}
	pass() // the index it made moved the schema: read once more
	if pass() {
		t.Fatal("a pass over an unchanged schema read it")
	}
	if _, err := db.Collection("first").InsertOne(ctx, bson.M{"_id": "b"}); err != nil {
		t.Fatal(err)
	}
	if pass() {
		t.Fatal("a write that made no table moved the schema")
	}
	if _, err := db.Collection("second").InsertOne(ctx, bson.M{"_id": "a"}); err != nil {
		t.Fatal(err)
	}
	if !pass() || !indexed("second") {
		t.Fatal("a collection made later must be indexed by the next pass")
	}
}

// The background pass checkpoints a database's log only when another
// connection committed since its last complete checkpoint.
func TestTheIndexPassCheckpointsOnlyAfterWrites(t *testing.T) {
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
		did, err := open.indexFile(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		return did.checkpointed
	}
	if !checkpointed() {
		t.Fatal("the first pass must checkpoint")
	}
	checkpointed() // after the index the first pass made
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
