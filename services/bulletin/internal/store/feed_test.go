package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/bulletin/internal/domain"
	"sharedworld.dev/services/bulletin/internal/store"
)

func entry(id string, sec int, typ domain.FeedType) domain.FeedEntry {
	return domain.FeedEntry{EventID: id, Item: domain.FeedItem{Type: typ, At: ms(sec), Line: "#" + string(typ) + " " + id, ID: "about_" + id}}
}

func ids(entries []domain.StoredFeedEntry) string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = fmt.Sprintf("%s@%d", e.EventID, e.Seq)
	}
	return fmt.Sprint(out)
}

// feedAdapter is what the service is given: a domain.FeedRepository that
// makes its indexes and can be dropped for a rebuild.
type feedAdapter interface {
	domain.FeedRepository
	EnsureIndexes(context.Context) error
	Drop(context.Context) error
}

func newMongoFeed(db *mongox.DB) feedAdapter    { return store.NewFeed(db) }
func newMirroredFeed(db *mongox.DB) feedAdapter { return store.NewMirroredFeed(db) }

// TestFeedRepository is the contract of domain.FeedRepository, run against
// both adapters in the backend mode of the test kit.
func TestFeedRepository(t *testing.T) {
	testkit.EachAdapter(t, newMongoFeed, newMirroredFeed, feedContract)
}

func feedContract(t *testing.T, kit *testkit.Kit, open func() feedAdapter) {
	repo := open()
	if err := repo.EnsureIndexes(kit.Ctx()); err != nil {
		t.Fatal(err)
	}
	ctx := kit.Ctx()

	if seq, err := repo.MaxSeq(ctx); err != nil || seq != 0 {
		t.Fatalf("an empty feed's MaxSeq: %d %v", seq, err)
	}
	body := "Hello,\ncitizens."
	withBody := entry("ev_c", 2, domain.FeedAnnouncement)
	withBody.Item.Body = &body
	for i, e := range []domain.FeedEntry{entry("ev_a", 1, domain.FeedTicket), entry("ev_b", 3, domain.FeedClaim), withBody, entry("ev_d", 3, domain.FeedTicket)} {
		if inserted, err := repo.Insert(ctx, e, int64(i+1)); err != nil || !inserted {
			t.Fatalf("insert %s: %v %v", e.EventID, inserted, err)
		}
	}

	t.Run("a repeated event changes nothing", func(t *testing.T) {
		again := entry("ev_a", 9, domain.FeedClaim)
		if inserted, err := repo.Insert(ctx, again, 5); err != nil || inserted {
			t.Fatalf("a second entry of one event: inserted %v, %v", inserted, err)
		}
		got, err := repo.Since(ctx, 0, 10)
		if err != nil || ids(got) != "[ev_a@1 ev_b@2 ev_c@3 ev_d@4]" {
			t.Fatalf("feed after a repeat: %s %v", ids(got), err)
		}
		if got[0].Item != entry("ev_a", 1, domain.FeedTicket).Item {
			t.Fatalf("the repeat changed the stored entry: %+v", got[0])
		}
		if seq, _ := repo.MaxSeq(ctx); seq != 4 {
			t.Fatalf("MaxSeq %d, want 4", seq)
		}
	})

	t.Run("an entry found under its own seq was inserted by an earlier attempt", func(t *testing.T) {
		// A retry after a write whose answer was lost: the entry is the
		// caller's, and must still go out to live subscribers.
		if inserted, err := repo.Insert(ctx, entry("ev_b", 3, domain.FeedClaim), 2); err != nil || !inserted {
			t.Fatalf("the same entry under the same seq again: inserted %v, %v", inserted, err)
		}
	})

	t.Run("a used sequence number is refused", func(t *testing.T) {
		if _, err := repo.Insert(ctx, entry("ev_e", 4, domain.FeedTicket), 2); !errors.Is(err, store.ErrSeqTaken) {
			t.Fatalf("want ErrSeqTaken, got %v", err)
		}
	})

	t.Run("pages run newest first by time then event id, with a type filter", func(t *testing.T) {
		first, err := repo.Page(ctx, "", nil, 2)
		if err != nil || ids(first) != "[ev_d@4 ev_b@2]" {
			t.Fatalf("first page: %s %v", ids(first), err)
		}
		last := first[len(first)-1]
		rest, err := repo.Page(ctx, "", &domain.FeedPageKey{At: last.Item.At, EventID: last.EventID}, 10)
		if err != nil || ids(rest) != "[ev_c@3 ev_a@1]" {
			t.Fatalf("next page: %s %v", ids(rest), err)
		}
		if rest[0].Item.Body == nil || *rest[0].Item.Body != body || rest[0].Item.At.Location() != time.UTC {
			t.Fatalf("an entry comes back whole: %+v", rest[0].Item)
		}
		tickets, err := repo.Page(ctx, domain.FeedTicket, nil, 10)
		if err != nil || ids(tickets) != "[ev_d@4 ev_a@1]" {
			t.Fatalf("tickets: %s %v", ids(tickets), err)
		}
	})

	t.Run("since returns what follows a sequence number in stream order", func(t *testing.T) {
		got, err := repo.Since(ctx, 2, 1)
		if err != nil || ids(got) != "[ev_c@3]" {
			t.Fatalf("since 2, limit 1: %s %v", ids(got), err)
		}
		if got, _ := repo.Since(ctx, 4, 10); len(got) != 0 {
			t.Fatalf("nothing follows the last: %s", ids(got))
		}
	})

	t.Run("a batch inserts what is new and tells each entry's fate", func(t *testing.T) {
		got, err := repo.InsertAll(ctx, []domain.StoredFeedEntry{
			{Seq: 5, FeedEntry: entry("ev_f", 5, domain.FeedTicket)},
			{Seq: 6, FeedEntry: entry("ev_a", 1, domain.FeedTicket)}, // stored before, under 1
			{Seq: 7, FeedEntry: entry("ev_g", 6, domain.FeedClaim)},
		})
		if err != nil || fmt.Sprint(got) != "[true false true]" {
			t.Fatalf("InsertAll: %v %v", got, err)
		}
		all, err := repo.Since(ctx, 4, 10)
		if err != nil || ids(all) != "[ev_f@5 ev_g@7]" {
			t.Fatalf("after the batch: %s %v", ids(all), err)
		}
		if _, err := repo.InsertAll(ctx, []domain.StoredFeedEntry{{Seq: 7, FeedEntry: entry("ev_h", 7, domain.FeedClaim)}}); !errors.Is(err, store.ErrSeqTaken) {
			t.Fatalf("a batch entry under a used seq: want ErrSeqTaken, got %v", err)
		}
	})

	// As a restarted process opens it: the stored entries, not the ones
	// this adapter remembers writing.
	reopened := open()
	if err := reopened.EnsureIndexes(ctx); err != nil {
		t.Fatal(err)
	}

	t.Run("a second adapter opened on the stored feed answers the same", func(t *testing.T) {
		if seq, err := reopened.MaxSeq(ctx); err != nil || seq != 7 {
			t.Fatalf("MaxSeq %d %v, want 7", seq, err)
		}
		if got, err := reopened.Since(ctx, 0, 10); err != nil || ids(got) != "[ev_a@1 ev_b@2 ev_c@3 ev_d@4 ev_f@5 ev_g@7]" {
			t.Fatalf("stream: %s %v", ids(got), err)
		}
		if got, err := reopened.Page(ctx, "", nil, 10); err != nil || ids(got) != "[ev_g@7 ev_f@5 ev_d@4 ev_b@2 ev_c@3 ev_a@1]" {
			t.Fatalf("newest first: %s %v", ids(got), err)
		}
		if inserted, err := reopened.Insert(ctx, entry("ev_b", 3, domain.FeedClaim), 8); err != nil || inserted {
			t.Fatalf("a stored event again: inserted %v, %v", inserted, err)
		}
	})

	t.Run("a dropped feed is empty and takes entries from seq 1 again", func(t *testing.T) {
		if err := reopened.Drop(ctx); err != nil {
			t.Fatal(err)
		}
		if seq, err := reopened.MaxSeq(ctx); err != nil || seq != 0 {
			t.Fatalf("MaxSeq after a drop: %d %v", seq, err)
		}
		if got, err := reopened.Page(ctx, "", nil, 10); err != nil || len(got) != 0 {
			t.Fatalf("a page after a drop: %s %v", ids(got), err)
		}
		if inserted, err := reopened.Insert(ctx, entry("ev_a", 1, domain.FeedTicket), 1); err != nil || !inserted {
			t.Fatalf("an event applied again after a drop: inserted %v, %v", inserted, err)
		}
		if got, err := reopened.Since(ctx, 0, 10); err != nil || ids(got) != "[ev_a@1]" {
			t.Fatalf("stream after a drop: %s %v", ids(got), err)
		}
	})
}

// TestWorldFacts is the contract of domain.WorldFacts, run in the backend
// mode of the test kit.
func TestWorldFacts(t *testing.T) {
	kit := testkit.New(t)
	var repo domain.WorldFacts = store.NewMeta(kit.DB)
	ctx := context.Background()

	founded, err := repo.Founded(ctx, ms(0))
	if err != nil || !founded.Equal(ms(0)) || founded.Location() != time.UTC {
		t.Fatalf("first start: %v %v", founded, err)
	}
	if again, err := repo.Founded(ctx, ms(3600)); err != nil || !again.Equal(founded) {
		t.Fatalf("a later start changed the founding date: %v %v", again, err)
	}
	epoch, err := repo.Epoch(ctx)
	if err != nil || epoch == "" {
		t.Fatalf("epoch: %q %v", epoch, err)
	}
	if same, _ := repo.Epoch(ctx); same != epoch {
		t.Fatalf("the epoch changed by itself: %q then %q", epoch, same)
	}
	if err := repo.RenewEpoch(ctx); err != nil {
		t.Fatal(err)
	}
	if renewed, _ := repo.Epoch(ctx); renewed == epoch || renewed == "" {
		t.Fatalf("a renewed epoch must differ: %q then %q", epoch, renewed)
	}
	if again, _ := repo.Founded(ctx, ms(7200)); !again.Equal(founded) {
		t.Fatal("renewing the epoch changed the founding date")
	}
}
