package platform

import (
	"context"
	"errors"

	"github.com/segmentio/kafka-go"
	"go.mongodb.org/mongo-driver/mongo"

	"sharedworld.dev/pkg/config"
	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/mongox"
)

// Backend is where a host's services keep their data and exchange events.
type Backend struct {
	Client *mongo.Client
	// Mode is Shared when other processes may write the same databases (a
	// service binary runs as one of several replicas) and Exclusive when
	// this process is the only writer (the local runner's embedded database).
	Mode    mongox.Mode
	Brokers []string
	// Database names a service's database; nil means sharedworld_<service>.
	Database func(service string) string
	// Scanner, when set, reads whole collections of an Exclusive database
	// without the server (the local runner's embedded FerretDB files),
	// for the in-memory copies' scans at start.
	Scanner mongox.Scanner
	// Stop, when set, runs after the client disconnected (the local runner
	// stops its embedded servers there).
	Stop func()
}

// Connect is a service binary's backend: MongoDB at WORLD_MONGO_URI, Kafka
// at WORLD_KAFKA_BROKERS, every write guarded for replicas.
func Connect(ctx context.Context, cfg config.Common) (*Backend, error) {
	client, err := mongox.Connect(ctx, cfg.MongoURI)
	if err != nil {
		return nil, err
	}
	b := &Backend{Client: client, Mode: mongox.Shared, Brokers: cfg.KafkaBrokers}
	if cfg.MongoDB != "" {
		b.Database = func(string) string { return cfg.MongoDB }
	}
	return b, nil
}

// DB is the named service's database.
func (b *Backend) DB(service string) *mongox.DB {
	name := "sharedworld_" + service
	if b.Database != nil {
		name = b.Database(service)
	}
	db := mongox.NewDB(b.Client.Database(name), b.Mode)
	if b.Scanner != nil {
		db.UseScanner(b.Scanner)
	}
	return db
}

// Checks are the readiness probes: MongoDB answers a ping, a Kafka broker a dial.
func (b *Backend) Checks() []httpx.Check {
	return []httpx.Check{{Name: "mongodb", Probe: mongox.Ping(b.Client)}, {Name: "kafka", Probe: KafkaReachable(b.Brokers)}}
}

// Close disconnects and stops what the backend started.
func (b *Backend) Close() {
	_ = b.Client.Disconnect(context.Background())
	if b.Stop != nil {
		b.Stop()
	}
}

// KafkaReachable is a readiness probe: one broker answers a TCP dial.
func KafkaReachable(brokers []string) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		var last error
		for _, b := range brokers {
			conn, err := kafka.DialContext(ctx, "tcp", b)
			if err == nil {
				return conn.Close()
			}
			last = err
		}
		if last == nil {
			last = errors.New("no brokers configured")
		}
		return last
	}
}
