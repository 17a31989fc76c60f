package store

import (
	"context"
	"errors"
	"fmt"
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
	"sharedworld.dev/services/governance/internal/domain"
	"sharedworld.dev/services/governance/internal/messages"
)

func TestMain(m *testing.M) { testkit.Main(m) }

var at = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

// adapter is what the service is given: a domain.Repository with its
// collections and indexes.
type adapter interface {
	domain.Repository
	Collections() []*mongo.Collection
	EnsureIndexes(context.Context) error
}

func newMongo(db *mongox.DB) adapter    { return New(db, messages.Encode, nil) }
func newMirrored(db *mongox.DB) adapter { return NewMirrored(db, messages.Encode, nil) }

func propose(t *testing.T, repo domain.Repository, by string, typ domain.ProposalType) (domain.Proposal, error) {
	t.Helper()
	d := domain.Draft{Type: typ, Title: "t", Body: "b"}
	return repo.Propose(context.Background(), by, "2026-11-22", []int{1, 2, 3}, func(id string) (*domain.Proposal, domain.ProposalCreated) {
		return domain.NewProposal(id, d, by, at, 100)
	})
}

func cast(voter string, c domain.Choice) func(*domain.Proposal) ([]domain.Event, error) {
	return func(p *domain.Proposal) ([]domain.Event, error) {
		ev, err := p.Cast(domain.Ballot{Voter: voter, VoteID: domain.NewVoteID(), Sealed: []byte{1}, CastAt: at}, c, time.Time{})
		if err != nil {
			return nil, err
		}
		return []domain.Event{ev}, nil
	}
}

// TestRepositoryContract is what every domain.Repository must do, run
// against both adapters in the mode the kit is in (make test runs it
// embedded and shared): the daily limit under racing proposers, racing
// ballots on one proposal all kept with exactly one event each, refused
// ballots writing nothing, elections opened once per role and instant, and
// on a shared database a ballot by another replica between read and write.
func TestRepositoryContract(t *testing.T) {
	testkit.EachAdapter(t, newMongo, newMirrored, repositoryContract)
}

func repositoryContract(t *testing.T, kit *testkit.Kit, open func() adapter) {
	ctx := kit.Ctx()
	repo := open()
	if err := repo.EnsureIndexes(ctx); err != nil {
		t.Fatal(err)
	}

	t.Run("§7 three proposals per day under racing requests", func(t *testing.T) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		ok, limited := 0, 0
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := propose(t, repo, "emb_racer", domain.Standard)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					ok++
				case errors.Is(err, domain.ErrSlotsTaken):
					limited++
				default:
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if ok != 3 || limited != 5 {
			t.Fatalf("accepted %d, limited %d; want 3 and 5", ok, limited)
		}
	})

	t.Run("§7 racing ballots are all counted, each with its event", func(t *testing.T) {
		p, err := propose(t, repo, "emb_p", domain.Emergency)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := repo.ChangeProposal(ctx, p.ID, cast(fmt.Sprintf("emb_v%02d", i), domain.For)); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		_, err = repo.ChangeProposal(ctx, p.ID, cast("emb_v00", domain.Against))
		if !problem.IsKind(err, problem.KindConflict) {
			t.Fatalf("a second ballot: %v", err)
		}
		got, err := repo.Proposal(ctx, p.ID)
		if err != nil || got.Tally.For != 20 || got.Tally.Against != 0 || len(got.Ballots) != 20 || got.Version != 21 {
			t.Fatalf("after 20 racing ballots: %+v, %v", got.Tally, err)
		}
		outbox := rawOutbox(t, kit, p.ID)
		if len(outbox) != 21 || outbox[0].Type != catalog.TypeProposalCreated || outbox[20].Type != catalog.TypeVoteCast {
			t.Fatalf("outbox has %d events", len(outbox))
		}
	})

	t.Run("§7 an election opens once per role and instant", func(t *testing.T) {
		open := func() (domain.Election, error) {
			return repo.OpenElection(ctx, domain.Chief, at, func(id string) (*domain.Election, domain.ElectionOpened) {
				return domain.OpenElection(id, domain.Chief, at)
			})
		}
		a, err := open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := open()
		if err != nil || a.ID != b.ID {
			t.Fatalf("second opening: %v, %v", b.ID, err)
		}
		first, started, err := repo.FirstElectionAt(ctx)
		if err != nil || !started || !first.Equal(at) {
			t.Fatalf("first election at %v %v %v", first, started, err)
		}
	})

	if _, mirrored := repo.(*Mirrored); !mirrored { // the mirrored adapter is its database's only writer
		t.Run("another replica votes between read and write", func(t *testing.T) {
			testReplicaClash(t, kit)
		})
	}
}

// testReplicaClash plays two replicas on a shared database: another
// replica records the same citizen's ballot between this one's read and
// its write; the version guard notices, and the ballot is decided again
// on the replica's result.
func testReplicaClash(t *testing.T, kit *testkit.Kit) {
	ctx := kit.Ctx()
	mine := New(kit.SharedDB(), messages.Encode, nil)
	replica := New(kit.SharedDB(), messages.Encode, nil)
	p, err := propose(t, mine, "emb_q", domain.Emergency)
	if err != nil {
		t.Fatal(err)
	}
	done := false
	mine.BeforeProposalWrite(func(ctx context.Context, id string) {
		if !done {
			done = true
			if _, err := replica.ChangeProposal(ctx, id, cast("emb_same", domain.For)); err != nil {
				t.Error(err)
			}
		}
	})
	_, err = mine.ChangeProposal(ctx, p.ID, cast("emb_same", domain.Against))
	if !problem.IsKind(err, problem.KindConflict) {
		t.Fatalf("§7 the same citizen's ballot raced on two replicas: %v, want conflict", err)
	}
	mine.BeforeProposalWrite(nil)
	got, _ := mine.Proposal(ctx, p.ID)
	if got.Tally.For != 1 || got.Tally.Against != 0 || got.Version != 2 {
		t.Fatalf("§7 after the race: %+v version %d", got.Tally, got.Version)
	}
}

// rawOutbox reads the events waiting in a proposal's outbox.
func rawOutbox(t *testing.T, kit *testkit.Kit, id string) []events.Event {
	t.Helper()
	var d struct {
		Outbox []events.Event `bson:"_outbox"`
	}
	if err := kit.DB.Collection("proposals").FindOne(context.Background(), bson.M{"_id": id}).Decode(&d); err != nil {
		t.Fatal(err)
	}
	return d.Outbox
}
