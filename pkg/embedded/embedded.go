// Package embedded starts the in-process servers of the embedded default
// (CONTRACT §10): FerretDB on SQLite for the MongoDB wire protocol and kfake
// for the Kafka protocol. The local runner and the test kit use it; service
// binaries never do.
package embedded

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
	"github.com/twmb/franz-go/pkg/kfake"
)

// Mongo is a running embedded FerretDB.
type Mongo struct {
	URI  string
	dir  string
	stop context.CancelFunc
	done chan struct{}
}

// StartMongo serves FerretDB with its SQLite files under dir on a free loopback port.
func StartMongo(ctx context.Context, dir string, log *slog.Logger) (*Mongo, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	}
	f, err := ferretdb.New(&ferretdb.Config{
		Listener: ferretdb.ListenerConfig{TCP: "127.0.0.1:0"},
		Handler:  "sqlite",
		// WAL with synchronous=NORMAL survives a crash of this process; only
		// a power loss may forget the last commits.
		SQLiteURL: "file:" + abs + "/?_pragma=synchronous(normal)",
		Logger:    log,
	})
	if err != nil {
		return nil, fmt.Errorf("start embedded FerretDB: %w", err)
	}
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	m := &Mongo{stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(m.done)
		_ = f.Run(rctx)
	}()
	m.dir = abs
	go indexLoop(rctx, abs, 250*time.Millisecond)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if uri := f.MongoDBURI(); uri != "" && uri != "mongodb://127.0.0.1:0/" {
			m.URI = uri
			return m, nil
		}
		if time.Now().After(deadline) {
			cancel()
			return nil, fmt.Errorf("embedded FerretDB did not start listening")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// IndexNow adds the _id lookup index to every collection created so far
// (the background loop does it within 250 ms; tests and loaders call this).
func (m *Mongo) IndexNow(ctx context.Context) error { return indexIDs(ctx, m.dir) }

// Stop shuts FerretDB down and waits for its files to be closed.
func (m *Mongo) Stop() {
	m.stop()
	<-m.done
}

// Kafka is a running kfake cluster.
type Kafka struct {
	Cluster *kfake.Cluster
	Brokers []string
}

// StartKafka starts a single-broker kfake cluster on a loopback port with the
// given topics created and auto-creation allowed. port 0 picks a free port.
func StartKafka(port int, topics ...string) (*Kafka, error) {
	opts := []kfake.Opt{kfake.Ports(port), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(1)}
	if len(topics) > 0 {
		opts = append(opts, kfake.SeedTopics(1, topics...))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		return nil, fmt.Errorf("start embedded Kafka: %w", err)
	}
	return &Kafka{Cluster: c, Brokers: c.ListenAddrs()}, nil
}

// Stop closes the cluster.
func (k *Kafka) Stop() { k.Cluster.Close() }
