package app

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"sharedworld.dev/services/bulletin/internal/domain"
)

// BenchmarkWholeMap measures the rendering of GET /api/world/bulletin/map
// at 10,000 and 100,000 plots spread over the grid, and reports what it
// sends: 125,000 bytes plain, gzip-bytes to a browser.
func BenchmarkWholeMap(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		bits := make([]byte, domain.OccupancyBytes)
		r := rand.New(rand.NewPCG(1, uint64(n)))
		for set := 0; set < n; {
			i := r.IntN(domain.GridSide * domain.GridSide)
			if mask := byte(0x80) >> (i % 8); bits[i/8]&mask == 0 {
				bits[i/8] |= mask
				set++
			}
		}
		b.Run(fmt.Sprintf("plots=%d", n), func(b *testing.B) {
			var m *Rendered
			for b.Loop() {
				var err error
				if m, err = newRendered(bits); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(m.Gzip)), "gzip-bytes")
		})
	}
}
