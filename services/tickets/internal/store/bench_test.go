package store

import (
	"fmt"
	"testing"

	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/tickets/internal/domain"
)

// BenchmarkFileFiveADay files b.N tickets, five a day for each filer (the
// daily cap, as the seeded world does): the cost of a filing whatever its
// place in the filer's day, through the adapter the service uses in the
// kit's mode.
//
//	go test -run '^$' -bench FileFiveADay -benchtime 2000x ./internal/store/
func BenchmarkFileFiveADay(b *testing.B) {
	kit := testkit.New(b)
	s := newMongo(kit.DB)
	if kit.DB.Exclusive() {
		s = newMirrored(kit.DB)
	}
	if err := s.EnsureIndexes(kit.Ctx()); err != nil {
		b.Fatal(err)
	}
	f, err := domain.ParseFiling(domain.FileRequest{Category: "bug", Title: "t", Description: "d"})
	if err != nil {
		b.Fatal(err)
	}
	day := domain.Day(at)
	b.ResetTimer()
	for i := range b.N {
		by := fmt.Sprintf("emb_%06d", i/5)
		if _, err := s.File(kit.Ctx(), by, day, fiveSlots, func(id domain.TicketID) (*domain.Ticket, domain.Filed) {
			return f.Ticket(id, by, at)
		}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "filings/s")
}
