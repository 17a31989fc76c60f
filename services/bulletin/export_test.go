package bulletin

import (
	"context"
	"errors"
	"testing"
	"time"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/services/bulletin/internal/app"
	"sharedworld.dev/services/bulletin/internal/domain"
	"sharedworld.dev/services/bulletin/internal/messages"
	"sharedworld.dev/services/bulletin/internal/store"
	"sharedworld.dev/services/bulletin/internal/telemetry"
)

var errCrashed = errors.New("the process died here")

// crashingProjections stores the first keep records of a batch, then the
// process dies (keep < 0: it never does).
type crashingProjections struct {
	projectionRepository
	keep  int
	crash context.CancelFunc
}

func (c crashingProjections) SaveAll(ctx context.Context, records []domain.Record) ([]bool, error) {
	if c.keep < 0 {
		return c.projectionRepository.SaveAll(ctx, records)
	}
	if _, err := c.projectionRepository.SaveAll(ctx, records[:min(c.keep, len(records))]); err != nil {
		return nil, err
	}
	c.crash()
	return nil, errCrashed
}

// crashingFeed stores the first keep entries of a batch, then the process
// dies (keep < 0: it never does).
type crashingFeed struct {
	feedRepository
	keep  int
	crash context.CancelFunc
}

func (c crashingFeed) InsertAll(ctx context.Context, entries []domain.StoredFeedEntry) ([]bool, error) {
	if c.keep < 0 {
		return c.feedRepository.InsertAll(ctx, entries)
	}
	if _, err := c.feedRepository.InsertAll(ctx, entries[:min(c.keep, len(entries))]); err != nil {
		return nil, err
	}
	c.crash()
	return nil, errCrashed
}

// CrashWhileStoring applies evs as one batch, as Run's consumer does,
// through a bulletin (loaded from deps' database) that dies while storing
// the batch: after keepRecords of its records, or after all of them and
// keepFeed of its feed entries. Nothing of it survives but the store, and
// no offset was committed.
func CrashWhileStoring(t testing.TB, deps platform.Deps, evs []events.Event, keepRecords, keepFeed int) {
	t.Helper()
	ctx, crash := context.WithCancel(context.Background())
	defer crash()
	st, err := openStores(ctx, deps, RoleAll)
	if err != nil {
		t.Fatal(err)
	}
	founded, err := st.meta.Founded(ctx, deps.Clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	agg := app.NewAggregator(Options{}.World.WithDefaults(founded),
		crashingProjections{st.projections, keepRecords, crash}, crashingFeed{st.feed, keepFeed, crash},
		app.NewHub(1, 2*len(evs), telemetry.Observer{}), deps.Logger, telemetry.Observer{}) // a buffer that takes the batch as one chunk
	if err := agg.Load(ctx); err != nil {
		t.Fatal(err)
	}
	des := make([]domain.Event, len(evs))
	for i, e := range evs {
		if des[i], err = messages.ToDomain(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := agg.ApplyBatch(ctx, des); !errors.Is(err, context.Canceled) {
		t.Fatalf("the batch should have died while storing, got %v", err)
	}
}

// StoredFeed is every feed entry stored in deps' database, in stream order.
func StoredFeed(t testing.TB, deps platform.Deps) (eventIDs []string, seqs []int64) {
	t.Helper()
	entries, err := store.NewFeed(deps.DB).Since(context.Background(), 0, 100_000)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		eventIDs, seqs = append(eventIDs, e.EventID), append(seqs, e.Seq)
	}
	return eventIDs, seqs
}

// WriteAsAnotherAggregator stores a feed entry under seq directly, as an
// aggregator that has not yet noticed it lost the lease would.
func WriteAsAnotherAggregator(t testing.TB, deps platform.Deps, seq int64, eventID string, at time.Time) {
	t.Helper()
	e := domain.FeedEntry{EventID: eventID, Item: domain.FeedItem{Type: domain.FeedTicket, At: at, Line: "#ticket " + eventID, ID: "about_" + eventID}}
	if ok, err := store.NewFeed(deps.DB).Insert(context.Background(), e, seq); err != nil || !ok {
		t.Fatalf("store %s under seq %d: inserted %v, %v", eventID, seq, ok, err)
	}
}
