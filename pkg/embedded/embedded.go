// Package embedded starts the in-process servers of the embedded default
// (CONTRACT §10): FerretDB on SQLite for the MongoDB wire protocol and kfake
// for the Kafka protocol. The local runner and the test kit use it; service
// binaries never do.
package embedded

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kfake"
)

// Mongo is a running embedded FerretDB.
type Mongo struct {
	URI  string
	dir  string
	stop context.CancelFunc
	done chan struct{}
	// passed closes when the background pass has closed its files: a
	// start after Stop must not meet the last of them closing (the last
	// connection of a file checkpoints it and removes its log, under a
	// lock that an opening connection can find taken: SQLITE_BUSY).
	passed chan struct{}
}

// StartMongo serves FerretDB with its SQLite files under dir on a free loopback port.
func StartMongo(ctx context.Context, dir string, log *slog.Logger) (*Mongo, error) {
	return startMongo(ctx, dir, log, 250*time.Millisecond)
}

// startMongo is StartMongo with the background pass every so often (0:
// none; tests call CheckpointNow).
func startMongo(ctx context.Context, dir string, log *slog.Logger, every time.Duration) (*Mongo, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := dropSpareIDIndexes(ctx, abs); err != nil {
		return nil, fmt.Errorf("prepare the database files: %w", err)
	}
	if log == nil {
		log = slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	}
	f, err := ferretdb.New(&ferretdb.Config{
		Listener: ferretdb.ListenerConfig{TCP: "127.0.0.1:0"},
		Handler:  "sqlite",
		// WAL with synchronous=NORMAL survives a crash of this process; only
		// a power loss may forget the last commits. No write checkpoints
		// the log itself (wal_autocheckpoint 0): a checkpoint ends in an
		// fsync, which the committing writes waited for, and with the disk
		// busy that held every write of the database for seconds. The
		// background pass checkpoints instead, beside the writers. Statement
		// journals stay in memory (temp_store): a large insert spilled one
		// to a temporary file, opened and removed in the write's commit.
		SQLiteURL: "file:" + abs + "/?_pragma=synchronous(normal)&_pragma=wal_autocheckpoint(0)&_pragma=temp_store(memory)",
		Logger:    log,
	})
	if err != nil {
		return nil, fmt.Errorf("start embedded FerretDB: %w", err)
	}
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	m := &Mongo{stop: cancel, done: make(chan struct{}), passed: make(chan struct{})}
	go func() {
		defer close(m.done)
		_ = f.Run(rctx)
	}()
	m.dir = abs
	if every > 0 {
		go func() {
			defer close(m.passed)
			checkpointLoop(rctx, abs, every)
		}()
	} else {
		close(m.passed)
	}
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

// CheckpointNow checkpoints every write-ahead log written since its last
// complete checkpoint (the background loop does every 250 ms; tests call
// this).
func (m *Mongo) CheckpointNow(ctx context.Context) error {
	open := openFiles{}
	defer open.close()
	return open.checkpointAll(ctx, m.dir)
}

// Stop shuts FerretDB down and waits for its files to be closed.
func (m *Mongo) Stop() {
	m.stop()
	<-m.done
	<-m.passed
}

// Kafka is a running kfake cluster.
type Kafka struct {
	Cluster *kfake.Cluster
	Brokers []string
}

// StartKafka starts a single-broker kfake cluster on a loopback port with the
// given topics created and auto-creation allowed. port 0 picks a free port.
// It keeps everything in memory: tests, which need nothing after they end.
func StartKafka(port int, topics ...string) (*Kafka, error) {
	return startKafka(port, topics, nil)
}

// StartDurableKafka is StartKafka with the log, the topics and the consumer
// groups' committed offsets kept in files under dir, and reloaded from there
// at the next start: what the outbox relay handed to the broker and a
// consumer had not yet applied when the process was killed is still there
// after the restart, and each consumer group resumes at its last commit
// (what it applied after that commit comes again and its ledger drops it).
// Every produced batch is written to its file before the broker answers;
// without an fsync per batch, a kill of the process loses nothing (the
// kernel holds the write) and only a power loss may.
func StartDurableKafka(dir string, port int, topics ...string) (*Kafka, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create the broker's data directory: %w", err)
	}
	k, err := startKafka(port, topics, []kfake.Opt{kfake.DataDir(dir)})
	if err != nil {
		return nil, err
	}
	// Topics are seeded only into a new directory: create those a newer
	// catalog added since the directory was made.
	if err := k.ensureTopics(topics); err != nil {
		k.Stop()
		return nil, err
	}
	return k, nil
}

func startKafka(port int, topics []string, extra []kfake.Opt) (*Kafka, error) {
	opts := append([]kfake.Opt{kfake.Ports(port), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(1)}, extra...)
	if len(topics) > 0 {
		opts = append(opts, kfake.SeedTopics(1, topics...))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		return nil, fmt.Errorf("start embedded Kafka: %w", err)
	}
	return &Kafka{Cluster: c, Brokers: c.ListenAddrs()}, nil
}

func (k *Kafka) ensureTopics(topics []string) error {
	if len(topics) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client := &kafka.Client{Addr: kafka.TCP(k.Brokers...)}
	req := &kafka.CreateTopicsRequest{}
	for _, t := range topics {
		req.Topics = append(req.Topics, kafka.TopicConfig{Topic: t, NumPartitions: 1, ReplicationFactor: 1})
	}
	resp, err := client.CreateTopics(ctx, req)
	if err != nil {
		return fmt.Errorf("create the embedded broker's topics: %w", err)
	}
	for t, err := range resp.Errors {
		if err != nil && !errors.Is(err, kafka.TopicAlreadyExists) {
			return fmt.Errorf("create topic %s: %w", t, err)
		}
	}
	return nil
}

// Stop closes the cluster (a durable one writes its state out first).
func (k *Kafka) Stop() { k.Cluster.Close() }
