package store_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/bulletin/internal/domain"
)

// TestFeedOrder writes a feed through each adapter and walks every type
// filter and page size, page by page to the end, and the stream from
// several points, comparing each answer with the order the written entries
// make (computed here, by brute force): as written, and from a second
// adapter opened on the stored feed, as a restarted process opens it.
func TestFeedOrder(t *testing.T) {
	testkit.EachAdapter(t, newMongoFeed, newMirroredFeed, testFeedOrder)
}

func testFeedOrder(t *testing.T, kit *testkit.Kit, open func() feedAdapter) {
	ctx := kit.Ctx()
	written := open()
	if err := written.EnsureIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	types := []domain.FeedType{domain.FeedTicket, domain.FeedClaim, domain.FeedGarden, domain.FeedCitizen}
	rng := rand.New(rand.NewPCG(14, 1))
	base := time.Now().UTC().Truncate(time.Millisecond)
	var all []domain.StoredFeedEntry
	for i := range 240 {
		// Few distinct times, so ties broken by the event id are common;
		// ids are not in time order.
		e := domain.FeedEntry{EventID: fmt.Sprintf("ev_%04x", rng.IntN(1<<16)*1000+i), Item: domain.FeedItem{
			Type: types[rng.IntN(len(types))], At: base.Add(time.Duration(rng.IntN(40)) * time.Second), Line: fmt.Sprint("line ", i), ID: fmt.Sprint("item_", i)}}
		if i%7 == 0 {
			body := "body"
			e.Item.Body = &body
		}
		if _, err := written.Insert(ctx, e, int64(i+1)); err != nil {
			t.Fatal(err)
		}
		all = append(all, domain.StoredFeedEntry{Seq: int64(i + 1), FeedEntry: e})
	}
	reopened := open()
	if err := reopened.EnsureIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]feedAdapter{"as written": written, "opened on the stored feed": reopened} {
		if got, err := s.MaxSeq(ctx); err != nil || got != 240 {
			t.Fatalf("%s: MaxSeq %d %v", name, got, err)
		}
		for _, typ := range append([]domain.FeedType{""}, append(types, domain.FeedVote)...) {
			for _, size := range []int{1, 7, 50, 500} {
				var after *domain.FeedPageKey
				for pages := 0; ; pages++ {
					want := expectedPage(all, typ, after, size)
					got, err := s.Page(ctx, typ, after, size)
					if err != nil {
						t.Fatal(err)
					}
					if !sameEntries(got, want) {
						t.Fatalf("%s: type %q size %d page %d:\n got %s\nwant %s", name, typ, size, pages, ids(got), ids(want))
					}
					if len(want) < size {
						break
					}
					last := want[len(want)-1]
					after = &domain.FeedPageKey{At: last.Item.At, EventID: last.EventID}
				}
			}
		}
		for _, seq := range []int64{0, 1, 99, 239, 240, 500} {
			for _, size := range []int{1, 10, 300} {
				want := expectedSince(all, seq, size)
				got, err := s.Since(ctx, seq, size)
				if err != nil || !sameEntries(got, want) {
					t.Fatalf("%s: since %d size %d:\n got %s %v\nwant %s", name, seq, size, ids(got), err, ids(want))
				}
			}
		}
	}
}

// expectedPage is the page the written entries make, by brute force:
// newest first (time, then event id, descending), strictly below after,
// of type typ when given.
func expectedPage(all []domain.StoredFeedEntry, typ domain.FeedType, after *domain.FeedPageKey, limit int) []domain.StoredFeedEntry {
	var in []domain.StoredFeedEntry
	for _, e := range all {
		if typ != "" && e.Item.Type != typ {
			continue
		}
		if after != nil {
			if c := e.Item.At.Compare(after.At); c > 0 || c == 0 && e.EventID >= after.EventID {
				continue
			}
		}
		in = append(in, e)
	}
	slices.SortFunc(in, func(a, b domain.StoredFeedEntry) int {
		if c := b.Item.At.Compare(a.Item.At); c != 0 {
			return c
		}
		return strings.Compare(b.EventID, a.EventID)
	})
	return in[:min(limit, len(in))]
}

// expectedSince is the stream after seq the written entries make, by brute
// force.
func expectedSince(all []domain.StoredFeedEntry, seq int64, limit int) []domain.StoredFeedEntry {
	var in []domain.StoredFeedEntry
	for _, e := range all {
		if e.Seq > seq {
			in = append(in, e)
		}
	}
	slices.SortFunc(in, func(a, b domain.StoredFeedEntry) int { return cmp.Compare(a.Seq, b.Seq) })
	return in[:min(limit, len(in))]
}

// sameEntries: the same entries, each whole, in the same order (an empty
// answer equals no answer).
func sameEntries(got, want []domain.StoredFeedEntry) bool {
	return len(got) == len(want) && (len(got) == 0 || reflect.DeepEqual(got, want))
}
