package embedded

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// FerretDB's update keeps its read of the document open while it writes,
// so SQLite's own checkpoint after that commit cannot reach the last frame
// and never lets the write-ahead log start over: a database written only by
// updates (identity's presence) grew its log for as long as they came. The
// background pass (IndexNow here, between bursts of writes, as the loop
// does between requests) checkpoints it, and the next write starts it over.
func TestWriteAheadLogBoundedUnderUpdatesOnly(t *testing.T) {
	dir := t.TempDir()
	m, err := StartMongo(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	ctx := context.Background()
	client, err := mongo.Connect(ctx, options.Client().ApplyURI(m.URI).SetRetryWrites(false))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(ctx)
	coll := client.Database("walcheck").Collection("docs")
	for i := 0; i < 20; i++ {
		if _, err := coll.InsertOne(ctx, bson.M{"_id": fmt.Sprint("d", i), "n": 0}); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.IndexNow(ctx); err != nil {
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
			if err := m.IndexNow(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("largest write-ahead log: %.1f MiB", float64(largest)/(1<<20))
	if largest > limit {
		t.Fatalf("the write-ahead log grew to %.1f MiB under updates alone (limit %d MiB): its checkpoints never finish", float64(largest)/(1<<20), limit>>20)
	}
}
