package testkit

import (
	"context"
	"os"
	"sync"

	"github.com/gofiber/fiber/v2"
	"go.mongodb.org/mongo-driver/mongo"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/platform"
)

var (
	replicaOnce   sync.Once
	replicaClient *mongo.Client
	replicaErr    error
)

// ReplicaDB is the kit's database as one more replica process sees it: a
// handle of its own (its own locks) in Shared mode, whatever the kit's
// mode, on a client of its own, writing as make cluster's replicas do. The
// database alone makes a guarded write atomic across connections: MongoDB,
// and the embedded FerretDB, which holds a document's lock from a write's
// read to its commit. A test of a rule that must hold across replicas runs
// two or more ReplicaDBs at once.
func (k *Kit) ReplicaDB() *mongox.DB {
	k.T.Helper()
	replicaOnce.Do(func() {
		uri := os.Getenv(MongoURIEnv)
		if uri == "" {
			if _, replicaErr = sharedMongo(); replicaErr != nil {
				return
			}
			uri = mongoServer.URI
		}
		replicaClient, replicaErr = mongox.Connect(context.Background(), uri)
	})
	if replicaErr != nil {
		k.T.Fatalf("testkit: replica database: %v", replicaErr)
	}
	db := mongox.NewDB(replicaClient.Database(k.DB.Name()), mongox.Shared)
	if mongoServer != nil {
		db.UseScanner(mongoServer)
	}
	return db
}

// ReplicaApps runs n more replicas of a service beside the kit's, each
// built by start on deps of its own (clk's clock, a ReplicaDB), with its
// background work running, and returns their apps.
func (k *Kit) ReplicaApps(clk clock.Clock, n int, start func(context.Context, platform.Deps) (platform.Service, error)) []*fiber.App {
	k.T.Helper()
	apps := make([]*fiber.App, 0, n)
	for range n {
		deps := k.Deps(clk)
		deps.DB = k.ReplicaDB()
		svc, err := start(k.Ctx(), deps)
		if err != nil {
			k.T.Fatalf("testkit: start a replica: %v", err)
		}
		k.Run(svc)
		apps = append(apps, k.App(svc))
	}
	return apps
}
