package embedded

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// FerretDB's update keeps its read of the document open while it writes,
// so SQLite's own checkpoint after that commit cannot reach the last frame
// and never lets the write-ahead log start over: a database written only by
// updates (identity's presence) grew its log for as long as they came. The
// background pass (CheckpointNow here, between bursts of writes, as the loop
// does between requests) checkpoints it, and the next write starts it over.
func TestWriteAheadLogBoundedUnderUpdatesOnly(t *testing.T) {
	dir := t.TempDir()
	m, client := startConnected(t, dir, 250*time.Millisecond)
	ctx := context.Background()
	coll := client.Database("walcheck").Collection("docs")
	for i := 0; i < 20; i++ {
		if _, err := coll.InsertOne(ctx, bson.M{"_id": fmt.Sprint("d", i), "n": 0}); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.CheckpointNow(ctx); err != nil {
		t.Fatal(err)
	}
	// 3,000 updates write some 15,000 pages of log without a restart;
	// SQLite starts the log over at about 1,000 (4 MiB) when its
	// checkpoints can finish.
	const limit = 8 << 20
	wal := filepath.Join(dir, "walcheck.sqlite-wal")
	var largest int64
	for i := 0; i < 3000; i++ {
		if _, err := coll.UpdateOne(ctx, bson.M{"_id": fmt.Sprint("d", i%20)}, bson.M{"$set": bson.M{"n": i}}); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(wal); err == nil && st.Size() > largest {
			largest = st.Size()
		}
		if i%50 == 49 {
			if err := m.CheckpointNow(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("largest write-ahead log: %.1f MiB", float64(largest)/(1<<20))
	if largest > limit {
		t.Fatalf("the write-ahead log grew to %.1f MiB under updates alone (limit %d MiB): its checkpoints never finish", float64(largest)/(1<<20), limit>>20)
	}
}

// Writes never checkpoint the log themselves (that ends in an fsync, which
// held the database's line for as long as a busy disk took): without the
// background pass the log keeps every write, far past SQLite's own
// checkpoint point of about 1,000 pages; the pass then copies it into the
// database.
func TestWritesLeaveCheckpointsToTheBackgroundPass(t *testing.T) {
	dir := t.TempDir()
	m, client := startConnected(t, dir, 0)
	ctx := context.Background()
	coll := client.Database("walkeep").Collection("docs")
	filler := strings.Repeat("x", 4000)
	for i := range 3000 {
		if _, err := coll.InsertOne(ctx, bson.M{"_id": fmt.Sprint("d", i), "filler": filler}); err != nil {
			t.Fatal(err)
		}
	}
	const sqliteCheckpointsAt = 1000 * 4096
	wal, db := filepath.Join(dir, "walkeep.sqlite-wal"), filepath.Join(dir, "walkeep.sqlite")
	if size := fileSize(t, wal); size < 2*sqliteCheckpointsAt {
		t.Fatalf("the log holds %d bytes after 12 MB of writes: a write checkpointed it", size)
	}
	if size := fileSize(t, db); size > sqliteCheckpointsAt {
		t.Fatalf("the database holds %d bytes before any checkpoint of the pass", size)
	}
	if err := m.CheckpointNow(ctx); err != nil {
		t.Fatal(err)
	}
	if size := fileSize(t, db); size < 2*sqliteCheckpointsAt {
		t.Fatalf("the database holds %d bytes after the pass's checkpoint, want the writes", size)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// startConnected starts FerretDB on dir with the background pass every so
// often (0: none) and connects a client; both end with the test.
func startConnected(t *testing.T, dir string, every time.Duration) (*Mongo, *mongo.Client) {
	t.Helper()
	m, err := startMongo(context.Background(), dir, nil, every)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Stop)
	client, err := mongo.Connect(context.Background(), options.Client().ApplyURI(m.URI).SetRetryWrites(false))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	return m, client
}
