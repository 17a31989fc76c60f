package testkit

import (
	"context"
	"net/url"
	"os"
	"sync"

	"go.mongodb.org/mongo-driver/mongo"

	"sharedworld.dev/pkg/embedded"
	"sharedworld.dev/pkg/mongox"
)

var (
	gateOnce   sync.Once
	gateClient *mongo.Client
	gateErr    error
)

// ReplicaDB is the kit's database as one more replica process sees it: a
// handle of its own (its own locks) in Shared mode, whatever the kit's
// mode, writing as make cluster's replicas do. On the embedded FerretDB
// every replica's writes pass one embedded.WriteGate, which makes a
// guarded write atomic across connections as it is on MongoDB (FerretDB v1
// matches a guard and writes in two steps); against WORLD_TEST_MONGO_URI
// the server itself is the guard. A test of a rule that must hold across
// replicas runs two or more ReplicaDBs at once.
func (k *Kit) ReplicaDB() *mongox.DB {
	k.T.Helper()
	gateOnce.Do(func() {
		uri := os.Getenv(MongoURIEnv)
		if uri == "" {
			if _, gateErr = sharedMongo(); gateErr != nil {
				return
			}
			var u *url.URL
			if u, gateErr = url.Parse(mongoServer.URI); gateErr != nil {
				return
			}
			var gate *embedded.WriteGate
			if gate, gateErr = embedded.NewWriteGate("127.0.0.1:0", u.Host); gateErr != nil {
				return
			}
			uri = gate.URI(mongoServer.URI)
		}
		gateClient, gateErr = mongox.Connect(context.Background(), uri)
	})
	if gateErr != nil {
		k.T.Fatalf("testkit: replica database: %v", gateErr)
	}
	db := mongox.NewDB(gateClient.Database(k.DB.Name()), mongox.Shared)
	if mongoServer != nil {
		db.UseScanner(mongoServer)
	}
	return db
}
