package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/bulletin/internal/domain"
	"sharedworld.dev/services/bulletin/internal/messages"
	"sharedworld.dev/services/bulletin/internal/store"
)

func TestMain(m *testing.M) { testkit.Main(m) }

var now = time.Date(2026, 11, 22, 9, 0, 0, 250_700_000, time.UTC)

// outboxEvent is one outbox entry in the domain's terms.
type outboxEvent struct {
	Type    string
	Pinned  bool
	Version uint64
}

// outboxOf reads an announcement's outbox (every event not yet relayed;
// nothing relays here) and decodes each entry.
func outboxOf(t *testing.T, s *store.Announcements, postID string) []outboxEvent {
	t.Helper()
	var d struct {
		Outbox []events.Event `bson:"_outbox"`
	}
	if err := s.Collection().FindOne(context.Background(), bson.M{"_id": postID}).Decode(&d); err != nil {
		t.Fatal(err)
	}
	out := make([]outboxEvent, len(d.Outbox))
	for i, e := range d.Outbox {
		de, err := messages.ToDomain(e)
		if err != nil {
			t.Fatalf("outbox entry %d does not decode: %v", i, err)
		}
		switch p := de.Data.(type) {
		case domain.AnnouncementPosted:
			out[i] = outboxEvent{Type: de.Type, Pinned: p.Pinned, Version: p.Version}
		case domain.AnnouncementPinned:
			out[i] = outboxEvent{Type: de.Type, Pinned: p.Pinned, Version: p.Version}
		default:
			t.Fatalf("outbox entry %d is %T", i, de.Data)
		}
	}
	return out
}

func post(t *testing.T, repo domain.AnnouncementRepository, draft domain.AnnouncementDraft) domain.Announcement {
	t.Helper()
	plan, err := domain.PostAnnouncement(draft, nil, now)
	if err != nil {
		t.Fatal(err)
	}
	a, err := repo.Add(context.Background(), plan.Announce)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func setPinned(pinned bool) func(*domain.Announcement) ([]domain.AnnouncementEvent, error) {
	return func(a *domain.Announcement) ([]domain.AnnouncementEvent, error) { return a.SetPinned(pinned, now), nil }
}

// toggle flips the pin: every run is a change.
func toggle(a *domain.Announcement) ([]domain.AnnouncementEvent, error) {
	return a.SetPinned(!a.Pinned, now), nil
}

func newAnnouncements(t *testing.T, db *mongox.DB) *store.Announcements {
	t.Helper()
	s := store.NewAnnouncements(db, nil)
	if err := s.EnsureIndexes(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestAnnouncementRepository is the contract of domain.AnnouncementRepository,
// run in the backend mode of the test kit.
func TestAnnouncementRepository(t *testing.T) {
	kit := testkit.New(t)
	s := newAnnouncements(t, kit.DB)
	var repo domain.AnnouncementRepository = s
	ctx := kit.Ctx()

	t.Run("a post is stored at version 1 under a fresh post_id with its event", func(t *testing.T) {
		a := post(t, repo, domain.AnnouncementDraft{Title: "Welcome", Content: "Hello,\ncitizens."})
		if !domain.ValidPostID(a.PostID) || a.Version != 1 || !a.Pinned || a.Title != "Welcome" {
			t.Fatalf("posted: %+v", a)
		}
		got, err := repo.Get(ctx, a.PostID)
		if err != nil || got != a || got.PostedAt.Location() != time.UTC || !got.PostedAt.Equal(now.Truncate(time.Millisecond)) {
			t.Fatalf("read back %+v (%v), want %+v at %v", got, err, a, now.Truncate(time.Millisecond))
		}
		if ob := outboxOf(t, s, a.PostID); fmt.Sprint(ob) != "[{announcement.posted true 1}]" {
			t.Fatalf("outbox: %v", ob)
		}
		other := post(t, repo, domain.AnnouncementDraft{Title: "Second", Content: "x"})
		if other.PostID == a.PostID {
			t.Fatal("two posts drew one post_id")
		}
	})

	t.Run("pin and unpin: one event per change, none for no change", func(t *testing.T) {
		a := post(t, repo, domain.AnnouncementDraft{Title: "Quiet", Content: "x", Pinned: ptr(false)})
		pinned, err := repo.Update(ctx, a.PostID, setPinned(true))
		if err != nil || !pinned.Pinned || pinned.Version != 2 {
			t.Fatalf("pin: %+v %v", pinned, err)
		}
		if ids := pinnedIDs(t, repo); !ids[a.PostID] {
			t.Fatalf("Pinned() lacks the pinned announcement: %v", ids)
		}
		again, err := repo.Update(ctx, a.PostID, setPinned(true))
		if err != nil || again != pinned {
			t.Fatalf("pinning the pinned one: %+v %v, want it unchanged %+v", again, err, pinned)
		}
		unpinned, err := repo.Update(ctx, a.PostID, setPinned(false))
		if err != nil || unpinned.Pinned || unpinned.Version != 3 {
			t.Fatalf("unpin: %+v %v", unpinned, err)
		}
		if ids := pinnedIDs(t, repo); ids[a.PostID] {
			t.Fatalf("Pinned() still lists the unpinned announcement: %v", ids)
		}
		if stored, _ := repo.Get(ctx, a.PostID); stored != unpinned {
			t.Fatalf("stored %+v, want %+v", stored, unpinned)
		}
		want := "[{announcement.posted false 1} {announcement.pinned true 2} {announcement.pinned false 3}]"
		if ob := outboxOf(t, s, a.PostID); fmt.Sprint(ob) != want {
			t.Fatalf("outbox %v, want %s", ob, want)
		}
	})

	t.Run("a refused change writes nothing", func(t *testing.T) {
		a := post(t, repo, domain.AnnouncementDraft{Title: "Kept", Content: "x"})
		refused := errors.New("refused")
		_, err := repo.Update(ctx, a.PostID, func(a *domain.Announcement) ([]domain.AnnouncementEvent, error) {
			a.SetPinned(false, now)
			return nil, refused
		})
		if !errors.Is(err, refused) {
			t.Fatalf("the change's error comes back as it is: %v", err)
		}
		if stored, _ := repo.Get(ctx, a.PostID); stored != a || len(outboxOf(t, s, a.PostID)) != 1 {
			t.Fatalf("stored %+v, want %+v and one event", stored, a)
		}
	})

	t.Run("an unknown post_id is not found and stays unknown", func(t *testing.T) {
		if _, err := repo.Get(ctx, "ann_00000000"); !errors.Is(err, domain.ErrAnnouncementNotFound) {
			t.Fatalf("get: %v", err)
		}
		if _, err := repo.Update(ctx, "ann_00000000", setPinned(true)); !errors.Is(err, domain.ErrAnnouncementNotFound) {
			t.Fatalf("update: %v", err)
		}
		if n, err := s.Collection().CountDocuments(ctx, bson.M{"_id": "ann_00000000"}); err != nil || n != 0 {
			t.Fatalf("an update of an unknown id created %d documents (%v)", n, err)
		}
	})

	t.Run("racing writers on one announcement lose nothing", func(t *testing.T) {
		a := post(t, repo, domain.AnnouncementDraft{Title: "Raced", Content: "x"})
		const writers, each = 8, 10
		var wg sync.WaitGroup
		for range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range each {
					_, err := repo.Update(ctx, a.PostID, toggle)
					if err != nil {
						t.Error(err)
					}
				}
			}()
		}
		wg.Wait()
		got, err := repo.Get(ctx, a.PostID)
		if err != nil || got.Version != writers*each+1 || got.Pinned != a.Pinned {
			t.Fatalf("after %d toggles: %+v (%v); want version %d, pin as posted", writers*each, got, err, writers*each+1)
		}
		ob := outboxOf(t, s, a.PostID)
		if len(ob) != writers*each+1 {
			t.Fatalf("want one event per change, %d, got %d", writers*each+1, len(ob))
		}
		for i, e := range ob {
			if e.Version != uint64(i+1) || (i > 0 && e.Pinned == ob[i-1].Pinned) {
				t.Fatalf("event %d: %+v after %+v; want consecutive versions, each a real change", i, e, ob[max(i-1, 0)])
			}
		}
	})
}

// Another replica changes the announcement between this one's read and its
// write: on a shared database the version guard notices and the change is
// decided again on the replica's result, so its events follow the
// replica's, with the next version.
func TestAnnouncementVersionClashDecidesAgain(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	s := newAnnouncements(t, mongox.NewDB(kit.DB.Database, mongox.Shared))
	replica := store.NewAnnouncements(mongox.NewDB(kit.DB.Database, mongox.Shared), nil)
	a := post(t, s, domain.AnnouncementDraft{Title: "Contested", Content: "x", Pinned: ptr(false)})

	interleaved := 0
	store.SetAnnouncementsBeforeWrite(s, func(ctx context.Context, id string) {
		if interleaved < 2 {
			interleaved++
			if _, err := replica.Update(ctx, id, toggle); err != nil {
				t.Error(err)
			}
		}
	})
	runs := 0
	got, err := s.Update(ctx, a.PostID, func(a *domain.Announcement) ([]domain.AnnouncementEvent, error) {
		runs++
		return a.SetPinned(!a.Pinned, now), nil
	})
	if err != nil || runs != 3 || got.Version != 4 || !got.Pinned {
		t.Fatalf("want the change decided 3 times and applied once after both replica writes: runs %d, %+v, %v", runs, got, err)
	}
	want := "[{announcement.posted false 1} {announcement.pinned true 2} {announcement.pinned false 3} {announcement.pinned true 4}]"
	if ob := outboxOf(t, s, a.PostID); fmt.Sprint(ob) != want {
		t.Fatalf("outbox %v, want %s", ob, want)
	}

	// A change that finds the replica already did it writes nothing.
	store.SetAnnouncementsBeforeWrite(s, func(ctx context.Context, id string) {
		_, _ = replica.Update(ctx, id, setPinned(false))
	})
	got, err = s.Update(ctx, a.PostID, setPinned(false))
	if err != nil || got.Pinned || got.Version != 5 || len(outboxOf(t, s, a.PostID)) != 5 {
		t.Fatalf("an unpin the replica made first is not made twice: %+v %v", got, err)
	}

	store.SetAnnouncementsBeforeWrite(s, func(ctx context.Context, id string) {
		_, _ = replica.Update(ctx, id, toggle)
	})
	if _, err := s.Update(ctx, a.PostID, toggle); !errors.Is(err, mongox.ErrVersionClash) {
		t.Fatalf("an announcement that changes under every attempt ends in ErrVersionClash, got %v", err)
	}
}

func pinnedIDs(t *testing.T, repo domain.AnnouncementRepository) map[string]bool {
	t.Helper()
	pinned, err := repo.Pinned(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, a := range pinned {
		if !a.Pinned {
			t.Fatalf("Pinned() returned an unpinned announcement %+v", a)
		}
		ids[a.PostID] = true
	}
	return ids
}

func ptr[T any](v T) *T { return &v }
