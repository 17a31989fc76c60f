package store_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/bulletin/internal/domain"
	"sharedworld.dev/services/bulletin/internal/store"
)

// ms is a time as stored: UTC, whole milliseconds.
func ms(sec int) time.Time {
	return now.Add(time.Duration(sec) * time.Second).Truncate(time.Millisecond)
}

// oneOfEachKind is a record of every kind, every field set.
func oneOfEachKind() []domain.Record {
	return []domain.Record{
		domain.Citizen{AgentID: "emb_a1ce", CitizenNumber: 7, RegisteredAt: ms(1), Name: "Ada", NameVersion: 3, Living: true, LivingVersion: 1},
		domain.Plot{PlotID: "plot_x3_y4", X: 3, Y: 4, OwnerAgentID: "emb_a1ce", DisplayName: "Ada's Acre", ClaimedAt: ms(2), Claimed: true, Version: 2},
		domain.Ticket{TicketID: "tkt_0000000a", Category: "bug", Title: "Broken map", Severity: "high", FiledBy: "emb_a1ce",
			CreatedAt: ms(3), Status: "open", StatusVersion: 1, Upvotes: 4, UpvotesVersion: 5},
		domain.Proposal{ProposalID: "prop_0000000c", Type: "standard", Title: "Plant trees", ProposedBy: "emb_a1ce", CreatedAt: ms(4),
			DiscussionEndsAt: ms(5), VotingEndsAt: ms(6), Status: "voting", StatusVersion: 2, TotalEligible: 9,
			Tally: domain.Tally{For: 3, Against: 2, Abstain: 1}, TallyVersion: 6},
		domain.Election{ElectionID: "elec_0000000e", Role: "chief", OpenedAt: ms(7), NominationsEndAt: ms(8), VotingEndsAt: ms(9),
			Status: "closed", WinnerAgentID: "emb_a1ce", Version: 3},
		domain.Steward{Role: "land", AgentID: "emb_a1ce", TermStart: ms(10), TermEnd: ms(11), TermNumber: 2, Active: false, EndedAt: ms(12)},
		domain.PostedAnnouncement{PostID: "ann_0000000f", Title: "Welcome", Content: "Hello", PostedAt: ms(13), Pinned: true, PinnedAt: ms(14), PinVersion: 2},
		domain.Garden{Files: 12, At: ms(15)},
	}
}

func loadAll(t *testing.T, repo domain.ProjectionRepository) map[string]domain.Record {
	t.Helper()
	out := map[string]domain.Record{}
	if err := repo.Load(context.Background(), func(r domain.Record) { out[string(r.Kind())+"/"+r.Key()] = r }); err != nil {
		t.Fatal(err)
	}
	return out
}

func mustSave(t *testing.T, repo domain.ProjectionRepository, r domain.Record) bool {
	t.Helper()
	saved, err := repo.Save(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	return saved
}

// projectionAdapter is what the service is given: a
// domain.ProjectionRepository that can be dropped for a rebuild.
type projectionAdapter interface {
	domain.ProjectionRepository
	Drop(context.Context) error
}

func newMongoProjections(db *mongox.DB) projectionAdapter { return store.NewProjections(db) }
func newMirroredProjections(db *mongox.DB) projectionAdapter {
	return store.NewMirroredProjections(db)
}

// TestProjectionRepository is the contract of domain.ProjectionRepository,
// run against both adapters in the backend mode of the test kit.
func TestProjectionRepository(t *testing.T) {
	testkit.EachAdapter(t, newMongoProjections, newMirroredProjections, projectionContract)
}

func projectionContract(t *testing.T, kit *testkit.Kit, open func() projectionAdapter) {
	repo := open()

	t.Run("every kind of record comes back as it was saved", func(t *testing.T) {
		want := map[string]domain.Record{}
		for _, r := range oneOfEachKind() {
			if !mustSave(t, repo, r) {
				t.Fatalf("a new %s record was not saved", r.Kind())
			}
			want[string(r.Kind())+"/"+r.Key()] = r
		}
		if got := loadAll(t, repo); !reflect.DeepEqual(got, want) {
			t.Fatalf("loaded:\n%+v\nwant:\n%+v", got, want)
		}
	})

	t.Run("a repeated or older event changes nothing", func(t *testing.T) {
		v2 := domain.Plot{PlotID: "plot_x1_y9", X: 1, Y: 9, OwnerAgentID: "emb_b0b0", ClaimedAt: ms(20), Claimed: false, Version: 2}
		v1 := domain.Plot{PlotID: "plot_x1_y9", X: 1, Y: 9, OwnerAgentID: "emb_b0b0", ClaimedAt: ms(20), Claimed: true, Version: 1}
		if !mustSave(t, repo, v2) {
			t.Fatal("the first save of a record is saved")
		}
		if mustSave(t, repo, v1) {
			t.Fatal("an older revision over a newer one reports saved")
		}
		if !mustSave(t, repo, v2) {
			t.Fatal("the same revision again may fill in facts, so it is written")
		}
		if got := loadAll(t, repo)["plot/plot_x1_y9"]; got != v2 {
			t.Fatalf("stored %+v, want the newer %+v", got, v2)
		}
		v3 := v2
		v3.Claimed, v3.Version = true, 3
		if !mustSave(t, repo, v3) || loadAll(t, repo)["plot/plot_x1_y9"] != v3 {
			t.Fatal("a newer revision replaces the stored one")
		}
	})

	t.Run("a batch saves as Save saves each record", func(t *testing.T) {
		old := domain.Ticket{TicketID: "tkt_batch001", Title: "old", Status: "open", StatusVersion: 1}
		newer := domain.Ticket{TicketID: "tkt_batch001", Title: "newer", Status: "resolved", StatusVersion: 3}
		if !mustSave(t, repo, newer) {
			t.Fatal("the first save of a record is saved")
		}
		fresh := domain.Ticket{TicketID: "tkt_batch002", Title: "fresh", Status: "open", StatusVersion: 1}
		moved := v3AsOf(t, repo)
		saved, err := repo.SaveAll(context.Background(), []domain.Record{old, fresh, moved})
		if err != nil || fmt.Sprint(saved) != "[false true true]" {
			t.Fatalf("SaveAll: %v %v", saved, err)
		}
		all := loadAll(t, repo)
		if all["ticket/tkt_batch001"] != newer || all["ticket/tkt_batch002"] != fresh || all["plot/plot_x1_y9"] != moved {
			t.Fatalf("stored %+v %+v %+v", all["ticket/tkt_batch001"], all["ticket/tkt_batch002"], all["plot/plot_x1_y9"])
		}
	})

	t.Run("racing writers of one record: the highest revision stays", func(t *testing.T) {
		const revisions = 40
		var wg sync.WaitGroup
		for v := revisions; v >= 1; v-- { // started newest first, finishing in any order
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := repo.Save(context.Background(), domain.Election{ElectionID: "elec_raced", Status: fmt.Sprint(v), Version: uint64(v)}); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if got := loadAll(t, repo)["election/elec_raced"].(domain.Election); got.Version != revisions || got.Status != fmt.Sprint(revisions) {
			t.Fatalf("stored %+v, want revision %d", got, revisions)
		}
	})

	// As a restarted process opens it: the stored records, not the ones
	// this adapter remembers writing.
	reopened := open()

	t.Run("a second adapter opened on the stored records answers the same", func(t *testing.T) {
		want := loadAll(t, repo)
		if got := loadAll(t, reopened); len(got) != 12 || !reflect.DeepEqual(got, want) {
			t.Fatalf("opened again, %d records:\n%+v\nwant:\n%+v", len(got), got, want)
		}
		older := domain.Election{ElectionID: "elec_raced", Status: "older", Version: 39}
		if mustSave(t, reopened, older) {
			t.Fatal("an older revision than the stored one reports saved")
		}
		if saved, err := reopened.SaveAll(context.Background(), []domain.Record{older}); err != nil || fmt.Sprint(saved) != "[false]" {
			t.Fatalf("SaveAll of an older revision than the stored one: %v %v", saved, err)
		}
		if got := loadAll(t, reopened)["election/elec_raced"]; got != want["election/elec_raced"] {
			t.Fatalf("stored %+v, want the newer %+v", got, want["election/elec_raced"])
		}
	})

	t.Run("dropped records are gone, and any revision is saved afresh", func(t *testing.T) {
		if err := reopened.Drop(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := loadAll(t, reopened); len(got) != 0 {
			t.Fatalf("after a drop: %+v", got)
		}
		first := domain.Election{ElectionID: "elec_raced", Status: "replayed", Version: 1}
		if !mustSave(t, reopened, first) || loadAll(t, reopened)["election/elec_raced"] != first {
			t.Fatal("after a drop, the first revision of a record is saved")
		}
	})
}

// v3AsOf is the stored plot_x1_y9 one revision on.
func v3AsOf(t *testing.T, repo domain.ProjectionRepository) domain.Plot {
	t.Helper()
	p := loadAll(t, repo)["plot/plot_x1_y9"].(domain.Plot)
	p.DisplayName, p.Version = "moved on", p.Version+1
	return p
}

// A replica stored a newer record than a batch's: on a shared database the
// batch's guarded write misses, Save decides again on what the replica
// wrote, and the newer record stays.
func TestProjectionSaveAllAfterAReplica(t *testing.T) {
	kit := testkit.New(t)
	s := store.NewProjections(kit.SharedDB())
	replica := store.NewProjections(kit.SharedDB())
	plot := func(v uint64, owner string) domain.Plot {
		return domain.Plot{PlotID: "plot_x5_y5", X: 5, Y: 5, OwnerAgentID: owner, Claimed: true, Version: v}
	}
	if _, err := replica.Save(kit.Ctx(), plot(5, "replica")); err != nil {
		t.Fatal(err)
	}
	fresh := domain.Plot{PlotID: "plot_x6_y6", X: 6, Y: 6, OwnerAgentID: "mine", Claimed: true, Version: 1}
	saved, err := s.SaveAll(kit.Ctx(), []domain.Record{plot(4, "mine"), fresh})
	if err != nil || fmt.Sprint(saved) != "[false true]" {
		t.Fatalf("SaveAll: %v %v", saved, err)
	}
	all := loadAll(t, s)
	if all["plot/plot_x5_y5"] != plot(5, "replica") || all["plot/plot_x6_y6"] != fresh {
		t.Fatalf("stored %+v %+v", all["plot/plot_x5_y5"], all["plot/plot_x6_y6"])
	}
}

// Another replica saves the record between this one's read and its write:
// on a shared database the guard misses and Save decides again on what the
// replica wrote.
func TestProjectionSaveDecidesAgainAfterAReplica(t *testing.T) {
	kit := testkit.New(t)
	s := store.NewProjections(kit.SharedDB())
	replica := store.NewProjections(kit.SharedDB())
	plot := func(v uint64, owner string) domain.Plot {
		return domain.Plot{PlotID: "plot_x2_y2", X: 2, Y: 2, OwnerAgentID: owner, Claimed: true, Version: v}
	}

	replicaWrites := []domain.Plot{plot(1, "replica"), plot(2, "replica")}
	store.SetProjectionsBeforeWrite(s, func(ctx context.Context, _ string) {
		if len(replicaWrites) > 0 {
			if _, err := replica.Save(ctx, replicaWrites[0]); err != nil {
				t.Error(err)
			}
			replicaWrites = replicaWrites[1:]
		}
	})
	// First a new record (the replica inserts it first), then over the
	// replica's revision 1 (the replica moves it to 2 first): both times
	// Save reads again and its revision 3 still wins.
	if saved, err := s.Save(kit.Ctx(), plot(3, "mine")); err != nil || !saved {
		t.Fatalf("save after two replica writes: %v %v", saved, err)
	}
	if got := loadAll(t, s)["plot/plot_x2_y2"]; got != plot(3, "mine") {
		t.Fatalf("stored %+v", got)
	}

	// An older revision that finds a newer one stored after the replica's
	// write does not write.
	replicaWrites = []domain.Plot{plot(5, "replica")}
	if saved, err := s.Save(kit.Ctx(), plot(4, "mine")); err != nil || saved {
		t.Fatalf("an older revision than the replica's: saved %v, %v", saved, err)
	}
	if got := loadAll(t, s)["plot/plot_x2_y2"]; got != plot(5, "replica") {
		t.Fatalf("stored %+v, want the replica's newer revision", got)
	}

	v := uint64(5)
	store.SetProjectionsBeforeWrite(s, func(ctx context.Context, _ string) {
		v++
		_, _ = replica.Save(ctx, plot(v, "replica"))
	})
	if _, err := s.Save(kit.Ctx(), plot(1000, "mine")); !errors.Is(err, mongox.ErrVersionClash) {
		t.Fatalf("a record that changes under every attempt ends in ErrVersionClash, got %v", err)
	}
}
