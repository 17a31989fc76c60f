package store

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/identity/internal/domain"
)

// TestSearchesFollowWrites asks the shared terms first, then adds,
// changes (bio, visibility, presence) and deletes citizens in the copy,
// and compares every kept search with a walk of the rows, so that each
// write path of the kept searches (Add, Replace, Remove) is one the
// answers depend on.
func TestSearchesFollowWrites(t *testing.T) {
	t.Parallel()
	m := citizenMirrorOf(mongox.NewDB(nil, mongox.Exclusive))
	rng := rand.New(rand.NewPCG(28, 3))
	roles := []string{"gardener", "wanderer", "tinkerer", "Gardener of maps"}
	doc := func(i int) citizenDoc {
		return citizenDoc{AgentID: fmt.Sprintf("agent_%04d", i), Status: domain.StatusLiving, Name: fmt.Sprintf("Seed%04d", i),
			Number: int64(i + 1), DirectoryVisible: rng.IntN(10) > 0, DirectoryBio: fmt.Sprintf("A %s, number %d.", roles[rng.IntN(len(roles))], i),
			Interests: []string{[]string{"music", "maps"}[rng.IntN(2)]}}
	}
	keys := []searchKey{{fold("gardener"), ""}, {fold("seed"), ""}, {fold("wanderer"), fold("music")}, {fold("number 1"), ""}, {fold("a"), ""}}
	check := func(stage string) {
		t.Helper()
		for _, k := range keys {
			var want, got []string
			m.Scan(func(r *citizenRow) bool {
				if k.matches(r) {
					want = append(want, r.Doc.AgentID)
				}
				return true
			})
			slices.Sort(want) // ids sort as numbers here
			page, total := m.directoryPage(domain.DirectoryQuery{Search: k.search, Interest: k.interest, Limit: 1000})
			for _, c := range page {
				got = append(got, c.AgentID)
			}
			if total != int64(len(want)) || !slices.Equal(got, want) {
				t.Fatalf("%s: search %+v: got %d %v, want %d %v", stage, k, total, got, len(want), want)
			}
		}
	}
	for i := range 200 {
		m.Put(rowOf(doc(i)))
	}
	check("as loaded")
	for i := 200; i < 260; i++ {
		m.Put(rowOf(doc(i))) // new rows: Add
	}
	check("after new citizens")
	for range 300 {
		i := rng.IntN(260)
		d := doc(i)
		if rng.IntN(3) == 0 {
			// presence only: the row stays where it was, in the same lists
			m.Change(d.AgentID, func(r *citizenRow) bool { r.Doc.LastSeenAt = r.Doc.LastSeenAt.Add(1); return true })
			continue
		}
		m.Put(rowOf(d)) // a new bio or visibility: Replace
	}
	check("after profile changes and presence")
	for range 40 {
		m.Delete(fmt.Sprintf("agent_%04d", rng.IntN(260))) // Remove
	}
	check("after deletions")
}
