package embedded_test

import (
	"context"
	"net/url"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/embedded"
)

// Four processes' clients raise one counter with version-guarded updates,
// as mongox does for replicas: through the gate no raise is lost (on
// FerretDB v1 alone two clients can both match the same version).
func TestWriteGateMakesGuardedUpdatesAtomicAcrossConnections(t *testing.T) {
	ctx := context.Background()
	m, err := embedded.StartMongo(ctx, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	u, _ := url.Parse(m.URI)
	gate, err := embedded.NewWriteGate("127.0.0.1:0", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer gate.Close()
	const clients, raises = 4, 30
	var colls []*mongo.Collection
	for range clients {
		c, err := mongo.Connect(ctx, options.Client().ApplyURI(gate.URI(m.URI)))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Disconnect(ctx)
		colls = append(colls, c.Database("gate").Collection("counter"))
	}
	if _, err := colls[0].InsertOne(ctx, bson.M{"_id": "n", "version": int64(0), "n": int64(0)}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, coll := range colls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for done := 0; done < raises; {
				var doc struct {
					Version int64 `bson:"version"`
					N       int64 `bson:"n"`
				}
				if err := coll.FindOne(ctx, bson.M{"_id": "n"}).Decode(&doc); err != nil {
					t.Error(err)
					return
				}
				res, err := coll.UpdateOne(ctx, bson.M{"_id": "n", "version": doc.Version},
					bson.M{"$set": bson.M{"version": doc.Version + 1, "n": doc.N + 1}})
				if err != nil {
					t.Error(err)
					return
				}
				if res.ModifiedCount == 1 {
					done++
				}
			}
		}()
	}
	wg.Wait()
	var doc struct {
		N int64 `bson:"n"`
	}
	if err := colls[0].FindOne(ctx, bson.M{"_id": "n"}).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if doc.N != clients*raises {
		t.Fatalf("%d raises acknowledged, the counter says %d: a guarded update was not atomic", clients*raises, doc.N)
	}
}
