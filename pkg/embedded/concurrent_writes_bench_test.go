package embedded_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/embedded"
)

// pooledClient is a client of a fresh embedded database, with the
// driver's own pool as the runner's (no retried writes).
func pooledClient(tb testing.TB) (*embedded.Mongo, *mongo.Client) {
	tb.Helper()
	ctx := context.Background()
	m, err := embedded.StartMongo(ctx, tb.TempDir(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(m.Stop)
	c, err := mongo.Connect(ctx, options.Client().ApplyURI(m.URI).SetRetryWrites(false).SetMaxPoolSize(0))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = c.Disconnect(ctx) })
	return m, c
}

// cpuTime is the process's user and system CPU so far.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkConcurrentWrites: 32 writers, each a guarded update of a
// document of its own and an insert. cpu-us/op is the whole process's CPU
// (client and database) per pair of writes; the database commits the
// writes waiting at a moment together.
func BenchmarkConcurrentWrites(b *testing.B) {
	ctx := context.Background()
	m, c := pooledClient(b)
	docs, log := c.Database("bench").Collection("docs"), c.Database("bench").Collection("log")
	const writers = 32
	seed := make([]any, writers)
	for i := range seed {
		seed[i] = bson.M{"_id": fmt.Sprintf("w%02d", i), "version": int64(0), "pad": fmt.Sprintf("%0300d", i)}
	}
	if _, err := docs.InsertMany(ctx, seed); err != nil {
		b.Fatal(err)
	}
	if err := m.CheckpointNow(ctx); err != nil {
		b.Fatal(err)
	}
	var next atomic.Int64
	b.SetParallelism((writers + 1) / 2)
	b.ResetTimer()
	start := cpuTime(b)
	b.RunParallel(func(pb *testing.PB) {
		w := fmt.Sprintf("w%02d", next.Add(1)-1)
		version := int64(0)
		for i := 0; pb.Next(); i++ {
			res, err := docs.UpdateOne(ctx, bson.M{"_id": w, "version": version},
				bson.M{"$set": bson.M{"version": version + 1, "at": i}})
			if err != nil || res.ModifiedCount != 1 {
				b.Errorf("update %s v%d: %v %+v", w, version, err, res)
				return
			}
			version++
			if _, err := log.InsertOne(ctx, bson.M{"_id": fmt.Sprintf("%s-%d", w, i), "pad": "x"}); err != nil {
				b.Errorf("insert: %v", err)
				return
			}
		}
	})
	b.ReportMetric(float64((cpuTime(b)-start).Microseconds())/float64(b.N), "cpu-us/op")
}
