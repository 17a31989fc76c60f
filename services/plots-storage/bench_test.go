package plotsstorage_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"runtime"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/testkit"
)

// The benchmarks go through the production router (auth, body limits,
// decoding, error model) into embedded FerretDB, as a client would.

func BenchmarkStorageWrite4KiB(b *testing.B) {
	w := newWorld(b)
	ada := w.citizen("Ada")
	w.projectionCaughtUp(b, 1)
	id := w.claim(b, ada, 5, 5)
	content := bytes.Repeat([]byte("w"), 4<<10)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// 100 paths in turn: new files first, overwrites after.
		if r := w.write(b, ada, id, fmt.Sprintf("/bench/%03d.bin", i%100), content); r.Status != 201 {
			b.Fatalf("write: %d %s", r.Status, r.Raw)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
}

func BenchmarkStorageRead4KiB(b *testing.B) {
	w := newWorld(b)
	ada := w.citizen("Ada")
	w.projectionCaughtUp(b, 1)
	id := w.claim(b, ada, 5, 5)
	content := bytes.Repeat([]byte("r"), 4<<10)
	for i := range 100 {
		w.write(b, ada, id, fmt.Sprintf("/bench/%03d.bin", i), content).ExpectStatus(b, 201)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r := w.read(b, ada.Headers(), id, fmt.Sprintf("/bench/%03d.bin", i%100)); r.Status != 200 {
			b.Fatalf("read: %d %s", r.Status, r.Raw)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "reads/s")
}

func BenchmarkGardenWriteParallel(b *testing.B) {
	w := newWorld(b)
	agents := make(chan testkit.Agent, 64)
	for i := range cap(agents) {
		agents <- w.citizen(fmt.Sprintf("G%d", i))
	}
	w.projectionCaughtUp(b, cap(agents))
	content := bytes.Repeat([]byte("g"), 4<<10)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		a := <-agents
		i := 0
		for pb.Next() {
			// Tending a few files per citizen: the commons holds 1000 at most.
			if r := w.write(b, a, "plot_0_0", fmt.Sprintf("/garden/%s/%d.md", a.ID[4:12], i%8), content); r.Status != 201 {
				b.Errorf("garden write: %d %s", r.Status, r.Raw)
				return
			}
			i++
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
}

// BenchmarkGardenPlantingsParallel: 32 citizens plant new files at once,
// as a crowd does; each planting is a new file of its planter's share.
// Run with -benchtime Nx, N at most 3200 (32 shares of 100 files).
func BenchmarkGardenPlantingsParallel(b *testing.B) {
	w := newWorld(b)
	agents := make(chan testkit.Agent, 32)
	for i := range cap(agents) {
		agents <- w.citizen(fmt.Sprintf("G%d", i))
	}
	w.projectionCaughtUp(b, cap(agents))
	b.SetParallelism(cap(agents) / runtime.GOMAXPROCS(0))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		a := <-agents
		for i := 0; pb.Next(); i++ {
			if r := w.write(b, a, "plot_0_0", fmt.Sprintf("/garden/%s/%d.md", a.ID[4:12], i), []byte("seed")); r.Status != 201 {
				b.Errorf("garden planting: %d %s", r.Status, r.Raw)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "plantings/s")
}

// projectionCaughtUp waits until the citizens projection holds n citizens,
// so that a benchmark times its own work, not the consumer catching up.
func (w *world) projectionCaughtUp(b *testing.B, n int) {
	testkit.Eventually(b, time.Minute, "the citizens projection catches up", func() bool {
		got, err := w.kit.DB.Collection("citizens").CountDocuments(context.Background(), bson.M{})
		return err == nil && got >= int64(n)
	})
}

func BenchmarkClaim(b *testing.B) {
	w := newWorld(b)
	agents := make([]testkit.Agent, b.N)
	for i := range agents {
		agents[i] = w.citizen(fmt.Sprint("B", i))
	}
	w.projectionCaughtUp(b, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cell := i + 1 // skip the commons
		r := w.do(b, http.MethodPost, "/api/world/plots/claim", map[string]any{"x": cell % 1000, "y": cell / 1000}, agents[i].Headers())
		if r.Status != 201 {
			b.Fatalf("claim: %d %s", r.Status, r.Raw)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "claims/s")
}
