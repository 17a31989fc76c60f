package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/identity/internal/domain"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// adapter is what the service is given: a domain.Repository with its
// collection and indexes.
type adapter interface {
	domain.Repository
	Collection() *mongo.Collection
	EnsureIndexes(context.Context) error
}

func newMongo(db *mongox.DB) adapter    { return NewCitizens(db, nil) }
func newMirrored(db *mongox.DB) adapter { return NewMirroredCitizens(db, nil) }

// ensured is s with its indexes made (and the mirrored adapter's copy
// loaded), as the service starts it.
func ensured[S adapter](t *testing.T, s S) S {
	t.Helper()
	if err := s.EnsureIndexes(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

// newCitizens is a started MongoDB adapter on db.
func newCitizens(t *testing.T, db *mongox.DB) *Citizens {
	t.Helper()
	return ensured(t, NewCitizens(db, nil))
}

// outboxOf reads the events waiting in a citizen's outbox.
func outboxOf(t *testing.T, s interface{ Collection() *mongo.Collection }, id string) []events.Event {
	t.Helper()
	var d struct {
		Outbox []events.Event `bson:"_outbox"`
	}
	if err := s.Collection().FindOne(context.Background(), bson.M{"_id": id}).Decode(&d); err != nil {
		t.Fatal(err)
	}
	return d.Outbox
}

// TestCitizenRepository runs the repository contract against both
// adapters in the backend mode the kit is in (make test runs both), and
// reads every citizen it wrote through a second adapter opened on the
// stored citizens, as a restarted process opens them.
func TestCitizenRepository(t *testing.T) {
	testkit.EachAdapter(t, newMongo, newMirrored, func(t *testing.T, kit *testkit.Kit, open func() adapter) {
		ctx := kit.Ctx()
		repo := ensured(t, open())
		testRepository(t, ctx, repo, func(t *testing.T, id string) []events.Event { return outboxOf(t, repo, id) })
		reopened := ensured(t, open())
		for _, id := range []string{"emb_ada", "emb_bob", "emb_cat", "emb_race", "emb_ghost"} {
			want, wok, werr := repo.Get(ctx, id)
			got, gok, gerr := reopened.Get(ctx, id)
			if gerr != nil || werr != nil || gok != wok || !reflect.DeepEqual(got, want) {
				t.Fatalf("opened on the stored citizens: Get %s:\n got %+v %v %v\nwant %+v %v %v", id, got, gok, gerr, want, wok, werr)
			}
		}
	})
}

func ptr[T any](v T) *T { return &v }

// typesAndVersions sums up an outbox as "type@version" entries.
func typesAndVersions(t *testing.T, evs []events.Event) []string {
	t.Helper()
	out := make([]string, len(evs))
	for i, e := range evs {
		m, err := e.Decode()
		if err != nil {
			t.Fatal(err)
		}
		out[i] = fmt.Sprintf("%s@%d", strings.TrimPrefix(e.Type, "citizen."), m.(interface{ GetVersion() uint64 }).GetVersion())
	}
	return out
}

// register claims and activates agentID as the app does.
func register(t *testing.T, ctx context.Context, repo domain.Repository, agentID string, p domain.Profile, now time.Time) domain.Citizen {
	t.Helper()
	if err := repo.Claim(ctx, domain.NewPending(agentID, p, now)); err != nil {
		t.Fatal(err)
	}
	n, err := repo.NumberFor(ctx, agentID)
	if err != nil {
		t.Fatal(err)
	}
	c, err := repo.Change(ctx, agentID, func(c *domain.Citizen) (domain.Event, error) { return c.Activate(n) })
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// growBio appends one character to the bio as read: a change whose result
// depends on the state it reads, so a lost update shows as a short bio.
func growBio(ch string, now time.Time) func(*domain.Citizen) (domain.Event, error) {
	return func(c *domain.Citizen) (domain.Event, error) {
		return c.ChangeProfile(domain.ProfileChange{Bio: ptr(c.Bio + ch)}, now)
	}
}

func testRepository(t *testing.T, ctx context.Context, repo domain.Repository, outbox func(*testing.T, string) []events.Event) {
	now := clock.Stored(time.Now())
	const ada = "emb_ada"

	t.Run("claim, number and activate", func(t *testing.T) {
		if err := repo.Claim(ctx, domain.NewPending(ada, domain.Profile{Name: "Ada", Interests: []string{"math"}}, now)); err != nil {
			t.Fatal(err)
		}
		c, found, err := repo.Get(ctx, ada)
		if err != nil || !found || c.Status != domain.StatusPending || c.Version != 0 || c.Name != "Ada" || !c.RegisteredAt.Equal(now) {
			t.Fatalf("a claim is a pending citizen at version 0: %+v %v %v", c, found, err)
		}
		if pending, err := repo.Pending(ctx, now.Add(time.Second)); err != nil || len(pending) != 1 || pending[0].AgentID != ada {
			t.Fatalf("a claim older than the cutoff is pending: %+v %v", pending, err)
		}
		if pending, err := repo.Pending(ctx, now); err != nil || len(pending) != 0 {
			t.Fatalf("a claim newer than the cutoff is left to its request: %+v %v", pending, err)
		}
		n, err := repo.NumberFor(ctx, ada)
		if again, err2 := repo.NumberFor(ctx, ada); err != nil || err2 != nil || n != 1 || again != 1 {
			t.Fatalf("the first number is 1 and an agent keeps the number it holds: %d %d %v %v", n, again, err, err2)
		}
		c, err = repo.Change(ctx, ada, func(c *domain.Citizen) (domain.Event, error) { return c.Activate(n) })
		if err != nil || c.Status != domain.StatusLiving || c.Number != 1 || c.Version != 1 || c.Name != "Ada" {
			t.Fatalf("activated: %+v %v", c, err)
		}
		if got := typesAndVersions(t, outbox(t, ada)); fmt.Sprint(got) != "[registered@1]" {
			t.Fatalf("outbox after registering: %v", got)
		}
		if pending, err := repo.Pending(ctx, now.Add(time.Second)); err != nil || len(pending) != 0 {
			t.Fatalf("an activated citizen is not pending: %+v %v", pending, err)
		}
	})

	t.Run("duplicate claim", func(t *testing.T) {
		if err := repo.Claim(ctx, domain.NewPending(ada, domain.Profile{Name: "Impostor"}, now)); !errors.Is(err, domain.ErrClaimed) {
			t.Fatalf("a taken agent_id: want ErrClaimed, got %v", err)
		}
		c, _, err := repo.Get(ctx, ada)
		if err != nil || c.Name != "Ada" || c.Status != domain.StatusLiving || c.Version != 1 {
			t.Fatalf("a refused claim changes nothing: %+v %v", c, err)
		}
		if c, err := repo.Change(ctx, ada, func(c *domain.Citizen) (domain.Event, error) { return c.Activate(99) }); err != nil || c.Number != 1 || c.Version != 1 {
			t.Fatalf("activating a living citizen again is no change: %+v %v", c, err)
		}
	})

	t.Run("update", func(t *testing.T) {
		c, err := repo.Change(ctx, ada, func(c *domain.Citizen) (domain.Event, error) {
			return c.ChangeProfile(domain.ProfileChange{Name: ptr("Eva"), Bio: ptr("<p>graphs</p>")}, now)
		})
		if err != nil || c.Name != "Eva" || c.Bio != "graphs" || c.Version != 2 || len(c.Interests) != 1 {
			t.Fatalf("updated: %+v %v", c, err)
		}
		_, err = repo.Change(ctx, ada, func(c *domain.Citizen) (domain.Event, error) {
			return c.ChangeProfile(domain.ProfileChange{Bio: ptr(strings.Repeat("b", domain.MaxBio+1))}, now)
		})
		if !problem.IsKind(err, problem.KindValidation) {
			t.Fatalf("a refused change returns its error: %v", err)
		}
		stored, _, err := repo.Get(ctx, ada)
		if err != nil || stored.Name != "Eva" || stored.Bio != "graphs" || stored.Version != 2 {
			t.Fatalf("stored after one update and one refused: %+v %v", stored, err)
		}
		if got := typesAndVersions(t, outbox(t, ada)); fmt.Sprint(got) != "[registered@1 updated@2]" {
			t.Fatalf("outbox after updating: %v", got)
		}
	})

	t.Run("presence", func(t *testing.T) {
		if err := repo.Touch(ctx, ada, now.Add(time.Second), now.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		if err := repo.Touch(ctx, ada, now.Add(2*time.Second), time.Time{}); err != nil {
			t.Fatal(err)
		}
		c, _, err := repo.Get(ctx, ada)
		if err != nil || !c.LastSeenAt.Equal(now.Add(2*time.Second)) || !c.LastSignedAt.Equal(now.Add(time.Second)) || c.Version != 2 {
			t.Fatalf("presence is recorded (an unsigned sighting keeps the signed one) without a version: %+v %v", c, err)
		}
		if n := len(outbox(t, ada)); n != 2 {
			t.Fatalf("presence is no event: %d in the outbox", n)
		}
		c, err = repo.Change(ctx, ada, growBio("!", now))
		if err != nil || !c.LastSeenAt.Equal(now.Add(2*time.Second)) {
			t.Fatalf("a change keeps presence and returns it: %+v %v", c, err)
		}
	})

	t.Run("unknown id", func(t *testing.T) {
		const ghost = "emb_ghost"
		if _, found, err := repo.Get(ctx, ghost); found || err != nil {
			t.Fatalf("unknown: found %v, %v", found, err)
		}
		if _, err := repo.Change(ctx, ghost, growBio("x", now)); !errors.Is(err, domain.ErrNoCitizen) {
			t.Fatalf("changing an unknown citizen: want ErrNoCitizen, got %v", err)
		}
		if err := repo.Touch(ctx, ghost, now, now); err != nil {
			t.Fatal(err)
		}
		if _, found, _ := repo.Get(ctx, ghost); found {
			t.Fatal("a sighting of an unknown agent must not create a citizen")
		}
	})

	t.Run("directory", func(t *testing.T) {
		register(t, ctx, repo, "emb_bob", domain.Profile{Name: "Bob", DirectoryVisible: true, DirectoryBio: "Builds Bridges"}, now)
		register(t, ctx, repo, "emb_cat", domain.Profile{Name: "Cat", Interests: []string{"Bridges"}}, now)
		list, total, err := repo.Directory(ctx, domain.DirectoryQuery{Search: "bridges", Limit: 10})
		if err != nil || total != 1 || len(list) != 1 || list[0].AgentID != "emb_bob" || list[0].Number != 2 {
			t.Fatalf("only visible named living citizens, searched case-insensitively: %+v %d %v", list, total, err)
		}
	})

	t.Run("tombstone", func(t *testing.T) {
		later := now.Add(time.Minute)
		c, err := repo.Change(ctx, ada, func(c *domain.Citizen) (domain.Event, error) { return c.Tombstone(later) })
		if err != nil || c.Status != domain.StatusTombstoned || !c.TombstonedAt.Equal(later) || c.Version != 4 {
			t.Fatalf("tombstoned: %+v %v", c, err)
		}
		if _, err := repo.Change(ctx, ada, func(c *domain.Citizen) (domain.Event, error) { return c.Tombstone(later) }); !errors.Is(err, domain.ErrAlreadyTombstoned) {
			t.Fatalf("twice: %v", err)
		}
		if _, err := repo.Change(ctx, ada, growBio("x", later)); !errors.Is(err, domain.ErrNoCitizen) {
			t.Fatalf("a tombstoned citizen cannot change its profile: %v", err)
		}
		if got := typesAndVersions(t, outbox(t, ada)); fmt.Sprint(got) != "[registered@1 updated@2 updated@3 tombstoned@4]" {
			t.Fatalf("outbox after tombstoning: %v", got)
		}
		if err := repo.Claim(ctx, domain.NewPending(ada, domain.Profile{}, later)); !errors.Is(err, domain.ErrClaimed) {
			t.Fatalf("a tombstoned agent_id stays claimed: %v", err)
		}
	})

	t.Run("racing writers on one citizen", func(t *testing.T) {
		const id = "emb_race"
		register(t, ctx, repo, id, domain.Profile{Name: "Race"}, now)
		const writers, each = 8, 6
		lastTouch := map[time.Time]bool{}
		var wg sync.WaitGroup
		for w := range writers {
			if w%2 == 1 { // half touch presence while the other half change the profile
				lastTouch[now.Add(time.Duration(w*each+each-1)*time.Millisecond)] = true
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					var err error
					if w%2 == 1 {
						at := now.Add(time.Duration(w*each+i) * time.Millisecond)
						err = repo.Touch(ctx, id, at, at)
					} else {
						_, err = repo.Change(ctx, id, growBio(fmt.Sprint(w), now))
					}
					if err != nil {
						t.Error(err)
					}
				}
			}()
		}
		wg.Wait()
		changes := writers / 2 * each
		c, _, err := repo.Get(ctx, id)
		if err != nil || len(c.Bio) != changes || c.Version != uint64(changes)+1 {
			t.Fatalf("after %d racing profile changes: bio %q (%d), version %d, %v", changes, c.Bio, len(c.Bio), c.Version, err)
		}
		if !lastTouch[c.LastSeenAt] || !lastTouch[c.LastSignedAt] {
			t.Fatalf("presence %v/%v is not any toucher's last sighting %v", c.LastSeenAt, c.LastSignedAt, lastTouch)
		}
		got := typesAndVersions(t, outbox(t, id))
		want := []string{"registered@1"}
		for v := 2; v <= changes+1; v++ {
			want = append(want, fmt.Sprintf("updated@%d", v))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("one event per change, versions consecutive: got %v", got)
		}
	})
}
