package store_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/bulletin/internal/domain"
	"sharedworld.dev/services/bulletin/internal/store"
)

// TestFeedAgreesWithTheQueryPath writes a feed through the store of the
// kit's mode (embedded: the in-memory copy answers) and walks every type
// filter and page size, page by page to the end, and the stream from
// several points, comparing each answer with the MongoDB query path (a
// store on a shared handle of the same database) and with a store that
// loads the copy afresh, as a restart does.
func TestFeedAgreesWithTheQueryPath(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	written := store.NewFeed(kit.DB)
	if err := written.EnsureIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	types := []domain.FeedType{domain.FeedTicket, domain.FeedClaim, domain.FeedGarden, domain.FeedCitizen}
	rng := rand.New(rand.NewPCG(14, 1))
	base := time.Now().UTC().Truncate(time.Millisecond)
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
	}
	query := store.NewFeed(mongox.NewDB(kit.DB.Database, mongox.Shared))
	reloaded := store.NewFeed(mongox.NewDB(kit.DB.Database, kit.DB.Mode()))
	for name, s := range map[string]*store.Feed{"as written": written, "loaded at start": reloaded} {
		if got, err := s.MaxSeq(ctx); err != nil || got != 240 {
			t.Fatalf("%s: MaxSeq %d %v", name, got, err)
		}
		for _, typ := range append([]domain.FeedType{""}, append(types, domain.FeedVote)...) {
			for _, size := range []int{1, 7, 50, 500} {
				var after *domain.FeedPageKey
				for pages := 0; ; pages++ {
					want, err := query.Page(ctx, typ, after, size)
					if err != nil {
						t.Fatal(err)
					}
					got, err := s.Page(ctx, typ, after, size)
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(got, want) {
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
				want, err := query.Since(ctx, seq, size)
				if err != nil {
					t.Fatal(err)
				}
				got, err := s.Since(ctx, seq, size)
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: since %d size %d:\n got %s %v\nwant %s", name, seq, size, ids(got), err, ids(want))
				}
			}
		}
	}
}
