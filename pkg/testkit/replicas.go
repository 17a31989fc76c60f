package testkit

import (
	"context"
	"net/url"
	"os"
	"sync"

	"github.com/gofiber/fiber/v2"
	"go.mongodb.org/mongo-driver/mongo"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/embedded"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/platform"
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
