package store

import (
	"fmt"
	"testing"
	"time"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/identity/internal/domain"
)

// BenchmarkDirectoryCopyWrites is what keeping the directory's keyed
// lists costs a write at 10,000 listed citizens: a profile change (a new
// bio: the citizen leaves and joins trigram lists, some of them holding
// every citizen) and a presence write (the same keys and place: swapped
// in place).
func BenchmarkDirectoryCopyWrites(b *testing.B) {
	m := citizenMirrorOf(mongox.NewDB(nil, mongox.Exclusive))
	rows := make([]citizenRow, 10_000)
	for i := range rows {
		rows[i] = rowOf(citizenDoc{AgentID: fmt.Sprintf("agent_%05d", i), Status: domain.StatusLiving, Name: fmt.Sprintf("Seed%05d", i),
			Number: int64(i + 1), DirectoryVisible: true, DirectoryBio: fmt.Sprintf("A tinkerer of the seeded world, number %d.", i),
			Interests: []string{"music", "maps"}})
	}
	m.Reset(rows)
	target := rows[5000].Doc
	b.Run("profile", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			d := target
			d.DirectoryBio = fmt.Sprintf("A gardener of the seeded world, number %d.", i%2)
			m.Put(rowOf(d))
		}
	})
	b.Run("presence", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			m.Change(target.AgentID, func(r *citizenRow) bool { r.Doc.LastSeenAt = time.Unix(int64(i), 0); return true })
		}
	})
}

// BenchmarkDirectorySearch is a page of a search at 10,000 listed
// citizens: a term every third holds, at the start and deep in it, one
// every citizen holds, and a rare one.
func BenchmarkDirectorySearch(b *testing.B) {
	m := citizenMirrorOf(mongox.NewDB(nil, mongox.Exclusive))
	rows := make([]citizenRow, 10_000)
	for i := range rows {
		role := "tinkerer"
		if i%3 == 0 {
			role = "gardener"
		}
		rows[i] = rowOf(citizenDoc{AgentID: fmt.Sprintf("agent_%05d", i), Status: domain.StatusLiving, Name: fmt.Sprintf("Seed%05d", i),
			Number: int64(i + 1), DirectoryVisible: true, DirectoryBio: fmt.Sprintf("A %s of the seeded world, number %d.", role, i)})
	}
	m.Reset(rows)
	for _, q := range []domain.DirectoryQuery{{Search: "gardener"}, {Search: "gardener", Offset: 3000}, {Search: "seeded"}, {Search: "number 1234"}} {
		q.Limit = 50
		b.Run(fmt.Sprintf("%s offset %d", q.Search, q.Offset), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m.directoryPage(q)
			}
		})
	}
}
