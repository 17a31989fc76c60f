package world

import (
	"context"
	"log/slog"
	"path/filepath"

	"sharedworld.dev/pkg/embedded"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/proto/catalog"
)

// startBackend starts what cfg does not point at: the embedded FerretDB
// and the embedded Kafka broker, each with its files under DataDir, so that
// a kill of the process loses neither a stored write nor an event the
// broker took and a consumer had not applied yet. On the embedded
// database this process is the only writer (mongox.Exclusive); a MongoDB
// given by URI may have other writers (mongox.Shared). It returns cfg with
// the addresses filled in.
func startBackend(ctx context.Context, cfg Config, log *slog.Logger) (b *platform.Backend, _ Config, err error) {
	var mongo *embedded.Mongo
	var kafka *embedded.Kafka
	stop := func() {
		if kafka != nil {
			kafka.Stop()
		}
		if mongo != nil {
			mongo.Stop()
		}
	}
	defer func() {
		if err != nil {
			stop()
		}
	}()
	mode := mongox.Shared
	if cfg.MongoURI == "" {
		quiet := slog.New(log.Handler()).With("component", "ferretdb")
		if mongo, err = embedded.StartMongo(ctx, filepath.Join(cfg.DataDir, "mongo"), filterLevel(quiet, slog.LevelError)); err != nil {
			return nil, cfg, err
		}
		cfg.MongoURI, mode = mongo.URI, mongox.Exclusive
	}
	var dial []mongox.Option
	if mongo != nil {
		dial = append(dial, mongox.Uncapped())
	}
	client, err := mongox.Connect(ctx, cfg.MongoURI, dial...)
	if err != nil {
		return nil, cfg, err
	}
	if len(cfg.KafkaBrokers) == 0 {
		if kafka, err = embedded.StartDurableKafka(filepath.Join(cfg.DataDir, "kafka"), 0, catalog.AllTopics()...); err != nil {
			_ = client.Disconnect(context.Background())
			return nil, cfg, err
		}
		cfg.KafkaBrokers = kafka.Brokers
	}
	b = &platform.Backend{Client: client, Mode: mode, Brokers: cfg.KafkaBrokers, Stop: stop}
	if mongo != nil {
		b.Scanner = mongo
	}
	return b, cfg, nil
}
