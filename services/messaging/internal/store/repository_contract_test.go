package store

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/seal"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/messaging/internal/domain"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// adapter is what the service is given: the domain repositories with the
// collections and indexes.
type adapter interface {
	Messages() domain.Messages
	Notifications() domain.Notifications
	Inbox() domain.Inbox
	Commons() domain.Commons
	Stewards() Stewards
	OutboxCollections() []*mongo.Collection
	EnsureIndexes(context.Context) error
	DB() *mongox.DB
}

func noEvents(any) (events.Event, error) { return events.Event{}, nil }

func newMongo(db *mongox.DB) adapter    { return New(db, noEvents, nil) }
func newMirrored(db *mongox.DB) adapter { return NewMirrored(db, noEvents, nil) }

// opened is an adapter open made, its indexes ensured (and its copy loaded).
func opened(t testing.TB, open func() adapter) adapter {
	t.Helper()
	s := open()
	if err := s.EnsureIndexes(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

// Racing readers of one message: exactly one sets read_at, every other
// call sees it set.
func TestContractMarkReadRacesOnOneMessage(t *testing.T) {
	testkit.EachAdapter(t, newMongo, newMirrored, func(t *testing.T, kit *testkit.Kit, open func() adapter) {
		testMarkReadRaces(t, opened(t, open))
	})
}

func testMarkReadRaces(t *testing.T, s adapter) {
	ctx := context.Background()
	m, err := s.Messages().Send(ctx, func(id string) (domain.Message, domain.Sent) {
		return domain.Message{ID: id, From: "a", To: "b", Sealed: seal.Sealed{KDF: seal.KDFArgon2id}, SentAt: time.Now().UTC()}, domain.Sent{}
	})
	if err != nil {
		t.Fatal(err)
	}
	var firsts atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			now := time.Now().UTC()
			_, err := s.Messages().MarkRead(ctx, m.ID, func(m *domain.Message) error {
				already, err := m.MarkRead("b", now)
				if err == nil && already {
					return domain.ErrUnchanged
				}
				if err == nil {
					firsts.Add(1)
				}
				return err
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	// On a shared database a clash reruns the change, so count the writes
	// that stuck: the stored read_at is one, and later calls see it.
	got, err := s.Messages().MarkRead(ctx, m.ID, func(m *domain.Message) error {
		if already, _ := m.MarkRead("b", time.Now()); !already {
			t.Error("read_at not set after the race")
		}
		return domain.ErrUnchanged
	})
	if err != nil || got.ReadAt == nil {
		t.Fatalf("after race: %v %v", got, err)
	}
	if s.DB().Exclusive() && firsts.Load() != 1 {
		t.Fatalf("%d first reads, want 1", firsts.Load())
	}
}

// Two replicas on a shared database: B marks a broadcast between A's read
// and write of the same read state; A's write is refused by the version,
// decided again on B's state, and both marks survive. Replicas share a
// database only through the MongoDB adapter.
func TestContractReadStateVersionClashRetries(t *testing.T) {
	kit := testkit.New(t)
	a := New(kit.SharedDB(), noEvents, nil)
	b := New(kit.SharedDB(), noEvents, nil)
	ctx := context.Background()
	for _, s := range []*Store{a, b} {
		if err := s.EnsureIndexes(ctx); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Now().UTC().Truncate(time.Millisecond)
	if _, err := a.Notifications().ChangeReadState(ctx, "emb_r", func(st *domain.ReadState) error { st.MarkBroadcast(1, t0); return nil }); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	clashed := false
	a.reads.BeforeWrite = func(ctx context.Context, id string) {
		once.Do(func() {
			clashed = true
			if _, err := b.Notifications().ChangeReadState(ctx, id, func(st *domain.ReadState) error { st.MarkBroadcast(5, t0); return nil }); err != nil {
				t.Error(err)
			}
		})
	}
	st, err := a.Notifications().ChangeReadState(ctx, "emb_r", func(st *domain.ReadState) error { st.MarkBroadcast(3, t0); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if !clashed {
		t.Fatal("the replica never wrote in between")
	}
	for _, seq := range []int64{1, 3, 5} {
		if st.BroadcastReadAt(seq) == nil {
			t.Fatalf("mark %d lost: %+v", seq, st.Marks)
		}
	}
}

// A redelivered broadcast is stored once, and Seqs stay dense.
func TestContractBroadcastOncePerKeyDenseSeq(t *testing.T) {
	testkit.EachAdapter(t, newMongo, newMirrored, func(t *testing.T, kit *testkit.Kit, open func() adapter) {
		testBroadcastOncePerKey(t, opened(t, open))
	})
}

func testBroadcastOncePerKey(t *testing.T, s adapter) {
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			key := []string{"a", "b", "c"}[i%3]
			if _, err := s.Notifications().AddBroadcast(ctx, domain.Broadcast{Key: key, Kind: domain.KindAnnouncement, CreatedAt: time.Now().UTC()}); err != nil && !errors.Is(err, domain.ErrBusy) {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	latest, err := s.Notifications().LatestSeq(ctx)
	if err != nil || latest != 3 {
		t.Fatalf("latest seq %d (%v), want 3", latest, err)
	}
	n, _ := s.DB().Collection("broadcasts").CountDocuments(ctx, bson.M{})
	if n != 3 {
		t.Fatalf("%d broadcasts stored, want 3", n)
	}
}
