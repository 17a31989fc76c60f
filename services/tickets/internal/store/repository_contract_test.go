package store

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/proto/catalog"
	ticketsv1 "sharedworld.dev/proto/tickets/v1"
	"sharedworld.dev/services/tickets/internal/domain"
	"sharedworld.dev/services/tickets/internal/messages"
)

func TestMain(m *testing.M) { testkit.Main(m) }

var at = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

var fiveSlots = []int{1, 2, 3, 4, 5}

// adapter is what the service is given: a domain.Repository with its
// collection and indexes.
type adapter interface {
	domain.Repository
	Collection() *mongo.Collection
	EnsureIndexes(context.Context) error
}

func newMongo(db *mongox.DB) adapter    { return New(db, messages.Encode, nil) }
func newMirrored(db *mongox.DB) adapter { return NewMirrored(db, messages.Encode, nil) }

// TestRepositoryContract is what every domain.Repository must do, run
// against both adapters in the mode the kit is in (make test runs it
// embedded and shared): the daily limit under racing filers, one read per
// ticket, refused changes writing nothing, racing changes of one ticket all
// kept, each with exactly one event, and on
// a shared database a write by another replica between read and write.
func TestRepositoryContract(t *testing.T) {
	testkit.EachAdapter(t, newMongo, newMirrored, repositoryContract)
}

func repositoryContract(t *testing.T, kit *testkit.Kit, open func() adapter) {
	ctx := kit.Ctx()
	repo := open()
	if err := repo.EnsureIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	file := func(t *testing.T, by string, when time.Time) (domain.Snapshot, error) {
		t.Helper()
		f := mustFiling(t, "bug")
		return repo.File(ctx, by, domain.Day(when), fiveSlots, func(id domain.TicketID) (*domain.Ticket, domain.Filed) {
			return f.Ticket(id, by, when)
		})
	}
	upvote := func(id domain.TicketID, by string) (domain.Snapshot, error) {
		return repo.Change(ctx, id, func(tk *domain.Ticket) (domain.Event, error) { return tk.Upvote(by, at) })
	}

	t.Run("file", func(t *testing.T) {
		snap, err := file(t, "emb_a", at)
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`^tkt_[0-9a-f]{8}$`).MatchString(string(snap.ID)) {
			t.Fatalf("§1 ticket id %q, want tkt_ + 8 lowercase hex", snap.ID)
		}
		if snap.FiledBy != "emb_a" || snap.Status != domain.StatusOpen || snap.Version != 1 || !snap.CreatedAt.Equal(at) {
			t.Fatalf("§5 filed ticket = %+v", snap)
		}
		stored := rawTicket(t, repo, snap.ID)
		if d := stored.Ticket; d.FiledBy != "emb_a" || d.Title != "t" || d.Day != "2026-11-22" || d.Slot != 1 ||
			fmt.Sprint(eventTypes(stored.Outbox)) != "["+catalog.TypeTicketFiled+"]" {
			t.Fatalf("§5 stored ticket = %+v", stored)
		}
		got, err := repo.Get(ctx, snap.ID)
		if err != nil || got.ID != snap.ID || got.Title != "t" || got.Version != 1 || !got.CreatedAt.Equal(at) {
			t.Fatalf("get after filing: %+v, %v", got, err)
		}
		for range 4 {
			if _, err := file(t, "emb_a", at); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := file(t, "emb_a", at.Add(time.Hour)); !errors.Is(err, domain.ErrSlotsTaken) {
			t.Fatalf("§5 sixth filing of the day: %v, want ErrSlotsTaken", err)
		}
		if n := countFiledBy(t, repo, "emb_a"); n != 5 {
			t.Fatalf("§11 a refused filing wrote something: %d tickets", n)
		}
		if _, err := file(t, "emb_a", at.Add(24*time.Hour)); err != nil {
			t.Fatalf("§5 the next UTC day has free slots again: %v", err)
		}
	})

	t.Run("daily limit under racing filers", func(t *testing.T) {
		const filers = 12
		var wg sync.WaitGroup
		results := make(chan error, filers)
		for range filers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := file(t, "emb_racer", at)
				results <- err
			}()
		}
		wg.Wait()
		close(results)
		filed, refused := 0, 0
		for err := range results {
			switch {
			case err == nil:
				filed++
			case errors.Is(err, domain.ErrSlotsTaken):
				refused++
			default:
				t.Fatal(err)
			}
		}
		if filed != 5 || refused != filers-5 || countFiledBy(t, repo, "emb_racer") != 5 {
			t.Fatalf("§5 %d racing filings: %d filed, %d refused, %d stored; want exactly the limit of 5 filed",
				filers, filed, refused, countFiledBy(t, repo, "emb_racer"))
		}
	})

	t.Run("unknown id", func(t *testing.T) {
		if _, err := repo.Get(ctx, "tkt_00000000"); !problem.IsKind(err, problem.KindNotFound) {
			t.Fatalf("get of an unknown ticket: %v, want not found", err)
		}
		if _, err := upvote("tkt_00000000", "emb_b"); !problem.IsKind(err, problem.KindNotFound) {
			t.Fatalf("change of an unknown ticket: %v, want not found", err)
		}
	})

	t.Run("upvote twice", func(t *testing.T) {
		snap, err := file(t, "emb_c", at)
		if err != nil {
			t.Fatal(err)
		}
		got, err := upvote(snap.ID, "emb_d")
		if err != nil || got.Upvotes != 1 || got.Version != 2 || fmt.Sprint(got.Upvoters) != "[emb_d]" {
			t.Fatalf("§5 first upvote: %+v, %v", got, err)
		}
		if _, err := upvote(snap.ID, "emb_d"); !problem.IsKind(err, problem.KindConflict) {
			t.Fatalf("§5 second upvote by the same citizen: %v, want conflict", err)
		}
		if _, err := upvote(snap.ID, "emb_c"); !problem.IsKind(err, problem.KindPermission) {
			t.Fatalf("§5 upvote of one's own ticket: %v, want permission denied", err)
		}
		got, err = repo.Get(ctx, snap.ID)
		if err != nil || got.Upvotes != 1 || got.Version != 2 || len(rawTicket(t, repo, snap.ID).Outbox) != 2 {
			t.Fatalf("§11 refused upvotes wrote something: %+v, %v", got, err)
		}
	})

	t.Run("triage", func(t *testing.T) {
		snap, err := file(t, "emb_e", at)
		if err != nil {
			t.Fatal(err)
		}
		triage := func(to domain.Status, response string, when time.Time) (domain.Snapshot, error) {
			return repo.Change(ctx, snap.ID, func(tk *domain.Ticket) (domain.Event, error) {
				return tk.Apply(domain.Triage{To: to, Response: response}, when)
			})
		}
		if _, err := triage(domain.StatusAcknowledged, "Looking.", at.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		got, err := triage(domain.StatusResolved, "Fixed.", at.Add(2*time.Minute))
		if err != nil || got.Status != domain.StatusResolved || got.Response != "Fixed." || got.Version != 3 {
			t.Fatalf("§5 triage: %+v, %v", got, err)
		}
		if _, err := triage(domain.StatusOpen, "", at.Add(3*time.Minute)); !problem.IsKind(err, problem.KindConflict) {
			t.Fatalf("§5 reopening a resolved ticket: %v, want conflict", err)
		}
		got, err = repo.Get(ctx, snap.ID)
		if err != nil || got.Status != domain.StatusResolved || got.Response != "Fixed." || got.Version != 3 ||
			!got.UpdatedAt.Equal(at.Add(2*time.Minute)) || !got.CreatedAt.Equal(at) {
			t.Fatalf("get after triage: %+v, %v", got, err)
		}
		want := fmt.Sprint([]string{catalog.TypeTicketFiled, catalog.TypeTicketStatusChanged, catalog.TypeTicketStatusChanged})
		if got := fmt.Sprint(eventTypes(rawTicket(t, repo, snap.ID).Outbox)); got != want {
			t.Fatalf("outbox %s, want %s", got, want)
		}
	})

	t.Run("racing upvoters", func(t *testing.T) {
		snap, err := file(t, "emb_f", at)
		if err != nil {
			t.Fatal(err)
		}
		const voters = 10
		versions := make(chan uint64, voters)
		var wg sync.WaitGroup
		for i := range voters {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, err := upvote(snap.ID, fmt.Sprintf("emb_voter%d", i))
				if err != nil {
					t.Error(err)
					return
				}
				versions <- got.Version
			}()
		}
		wg.Wait()
		close(versions)
		var seen []uint64
		for v := range versions {
			seen = append(seen, v)
		}
		slices.Sort(seen)
		if fmt.Sprint(seen) != "[2 3 4 5 6 7 8 9 10 11]" {
			t.Fatalf("%d racing upvotes answered versions %v, want each of 2..11 once", voters, seen)
		}
		got, err := repo.Get(ctx, snap.ID)
		if err != nil || got.Upvotes != voters || len(got.Upvoters) != voters || got.Version != voters+1 {
			t.Fatalf("after %d racing upvotes: %+v, %v", voters, got, err)
		}
		outbox := rawTicket(t, repo, snap.ID).Outbox
		if len(outbox) != voters+1 {
			t.Fatalf("want one event per write (%d), got %d", voters+1, len(outbox))
		}
		for i, e := range outbox[1:] {
			m, err := e.Decode()
			up, ok := m.(*ticketsv1.TicketUpvoted)
			if err != nil || !ok || up.GetVersion() != uint64(i+2) || up.GetUpvotes() != int64(i+1) {
				t.Fatalf("outbox event %d: %v %v, want ticket.upvoted at version %d with %d upvotes", i+1, m, err, i+2, i+1)
			}
		}
	})

	if _, mirrored := repo.(*Mirrored); !mirrored { // the mirrored adapter is its database's only writer
		t.Run("another replica writes between read and write", func(t *testing.T) {
			testReplicaClash(t, kit)
		})
	}
}

// testReplicaClash plays two replicas on a shared database: another
// replica's write lands between this one's read and write (Docs.BeforeWrite),
// the version guard notices, and the change is decided again on its result.
func testReplicaClash(t *testing.T, kit *testkit.Kit) {
	ctx := kit.Ctx()
	mine := New(kit.SharedDB(), messages.Encode, nil)
	replica := New(kit.SharedDB(), messages.Encode, nil)
	f := mustFiling(t, "bug")
	snap, err := mine.File(ctx, "emb_filer", domain.Day(at), fiveSlots, func(id domain.TicketID) (*domain.Ticket, domain.Filed) {
		return f.Ticket(id, "emb_filer", at)
	})
	if err != nil {
		t.Fatal(err)
	}
	replicaWritesOnce := func(fn func(*domain.Ticket) (domain.Event, error)) {
		done := false
		mine.docs.BeforeWrite = func(ctx context.Context, id string) {
			if !done {
				done = true
				if _, err := replica.Change(ctx, domain.TicketID(id), fn); err != nil {
					t.Error(err)
				}
			}
		}
	}
	runs := 0
	upvoteBy := func(by string) func(*domain.Ticket) (domain.Event, error) {
		return func(tk *domain.Ticket) (domain.Event, error) { runs++; return tk.Upvote(by, at) }
	}

	replicaWritesOnce(upvoteBy("emb_other"))
	runs = 0
	if _, err := mine.Change(ctx, snap.ID, upvoteBy("emb_other")); !problem.IsKind(err, problem.KindConflict) {
		t.Fatalf("§5 the same citizen's second upvote (first on another replica): %v, want conflict", err)
	}
	if runs != 3 { // the replica's run, mine on the old version, mine again on the replica's
		t.Fatalf("the change ran %d times, want 3", runs)
	}
	mine.docs.BeforeWrite = nil
	got, err := mine.Change(ctx, snap.ID, upvoteBy("emb_third"))
	if err != nil || got.Upvotes != 2 || got.Version != 3 {
		t.Fatalf("§5 a third citizen's upvote after the other replica's: %+v, %v", got, err)
	}

	replicaWritesOnce(upvoteBy("emb_fourth"))
	got, err = mine.Change(ctx, snap.ID, func(tk *domain.Ticket) (domain.Event, error) {
		return tk.Apply(domain.Triage{To: domain.StatusAcknowledged}, at.Add(time.Minute))
	})
	if err != nil || got.Status != domain.StatusAcknowledged || got.Upvotes != 3 || got.Version != 5 {
		t.Fatalf("a triage decided again on top of the replica's upvote: %+v, %v", got, err)
	}
	want := fmt.Sprint([]string{catalog.TypeTicketFiled, catalog.TypeTicketUpvoted, catalog.TypeTicketUpvoted,
		catalog.TypeTicketUpvoted, catalog.TypeTicketStatusChanged})
	if got := fmt.Sprint(eventTypes(rawTicket(t, mine, snap.ID).Outbox)); got != want {
		t.Fatalf("outbox %s, want %s", got, want)
	}
}

// storedTicket is the whole stored document, outbox included.
type storedTicket struct {
	Ticket ticketDoc      `bson:",inline"`
	Outbox []events.Event `bson:"_outbox"`
}

func rawTicket(t *testing.T, s interface{ Collection() *mongo.Collection }, id domain.TicketID) storedTicket {
	t.Helper()
	var d storedTicket
	if err := s.Collection().FindOne(context.Background(), bson.M{"_id": string(id)}).Decode(&d); err != nil {
		t.Fatal(err)
	}
	return d
}

func countFiledBy(t *testing.T, s interface{ Collection() *mongo.Collection }, by string) int64 {
	t.Helper()
	n, err := s.Collection().CountDocuments(context.Background(), bson.M{"filed_by": by})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func eventTypes(evs []events.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}
