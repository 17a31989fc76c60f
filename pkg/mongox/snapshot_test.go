package mongox_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
)

// item has what a store's row relies on and a careless encoding loses:
// instants (zero, UTC at the stored precision), nil apart from empty
// slices, maps and byte strings, nil pointers apart from pointers to zero
// values, nested structs.
type item struct {
	ID      string            `bson:"_id"`
	Rank    int               `bson:"rank"`
	At      time.Time         `bson:"at"`
	Never   time.Time         `bson:"never"`
	DoneAt  *time.Time        `bson:"done_at"`
	Zero    *int64            `bson:"zero"`
	Tags    []string          `bson:"tags"`
	Counts  map[string]int64  `bson:"counts"`
	Blob    []byte            `bson:"blob"`
	Parts   []part            `bson:"parts"`
	ByName  map[string][]part `bson:"by_name"`
	Ratio   float64           `bson:"ratio"`
	Small   uint8             `bson:"small"`
	Version int64             `bson:"version"`
}

type part struct {
	Name string     `bson:"name"`
	When *time.Time `bson:"when"`
}

// itemV2 is item after a change of its fields: a snapshot of items does
// not hold for it.
type itemV2 struct {
	ID    string `bson:"_id"`
	Rank  int    `bson:"rank"`
	Label string `bson:"label"`
}

const itemColl = "items"

// process is one run of a process on the database: a fresh handle (its
// own Mirrors and locks) that opens the snapshot as a host does at start.
func process(t *testing.T, kit *testkit.Kit, dir string) *mongox.DB {
	t.Helper()
	db := mongox.NewDB(kit.DB.Database, mongox.Exclusive)
	if err := db.OpenSnapshot(kit.Ctx(), dir, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatalf("open snapshot: %v", err)
	}
	return db
}

// items is the store of the test: Docs writing items, a Mirror kept by
// them with one order, filled by a scan (counted in scans).
type items struct {
	docs   *mongox.Docs[item, note]
	mirror *mongox.Mirror[item]
	byRank *mongox.Order[item]
	scans  int
}

func newItems(db *mongox.DB) *items {
	s := &items{docs: mongox.NewDocs[item, note](db, itemColl, nil), mirror: mongox.MirrorOf(db, itemColl, func(r *item) string { return r.ID })}
	s.byRank = s.mirror.Order("rank", func(a, b *item) int {
		if a.Rank != b.Rank {
			return a.Rank - b.Rank
		}
		return strings.Compare(a.ID, b.ID)
	}, func(r *item) bool { return r.Rank%2 == 0 })
	s.docs.Written = func(id string, d *item) {
		if d == nil {
			s.mirror.Delete(id)
			return
		}
		s.mirror.Put(*d)
	}
	return s
}

func (s *items) load(t *testing.T, ctx context.Context) {
	t.Helper()
	err := s.mirror.Load(ctx, func(ctx context.Context) ([]item, error) {
		s.scans++
		return mongox.FindAll[item](ctx, s.docs.Collection(), bson.M{}, options.Find().SetProjection(bson.M{mongox.OutboxField: 0}))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// listing is everything the copy answers: every row by id and the order.
func (s *items) listing() string {
	var b strings.Builder
	s.byRank.Ascend(nil, func(r *item) bool { fmt.Fprintf(&b, "%s,", r.ID); return true })
	return b.String()
}

func (s *items) rows() map[string]item {
	out := map[string]item{}
	s.mirror.Scan(func(r *item) bool { out[r.ID] = *r; return true })
	return out
}

func seedItems(t *testing.T, ctx context.Context, s *items, n int) {
	t.Helper()
	at := time.Date(2031, 5, 6, 7, 8, 9, 123_000_000, time.UTC)
	var zero int64
	for i := range n {
		it := item{ID: fmt.Sprintf("it_%03d", i), Rank: i % 7, At: at.Add(time.Duration(i) * time.Second), Ratio: float64(i) / 3, Small: uint8(i)}
		switch i % 4 {
		case 0: // nil everywhere
		case 1: // empty, not nil
			it.Tags, it.Counts, it.Blob, it.Parts, it.ByName = []string{}, map[string]int64{}, []byte{}, []part{}, map[string][]part{}
			it.Zero = &zero
		default:
			done := at.Add(time.Hour)
			it.DoneAt, it.Tags, it.Counts, it.Blob = &done, []string{"a", ""}, map[string]int64{"x": 1, "": 0}, []byte{0, 1, 2}
			it.Parts = []part{{Name: "p"}, {Name: "q", When: &done}}
			it.ByName = map[string][]part{"p": nil, "q": {}, "r": {{Name: "r"}}}
		}
		if _, err := s.docs.Insert(ctx, it.ID, it); err != nil {
			t.Fatal(err)
		}
	}
}

func stopCleanly(t *testing.T, ctx context.Context, db *mongox.DB, dir string) int {
	t.Helper()
	n, err := db.WriteSnapshot(ctx, dir, time.Now().Add(time.Second))
	if err != nil {
		t.Fatalf("write snapshot: %v", err)
	}
	return n
}

// A start after a clean stop reads the copy from the snapshot and answers
// exactly as a start that scans; writes after it are kept as before.
func TestSnapshotRestartAnswersAsAScan(t *testing.T) {
	kit := testkit.New(t)
	ctx, dir := kit.Ctx(), t.TempDir()
	first := newItems(process(t, kit, dir))
	first.load(t, ctx)
	seedItems(t, ctx, first, 40)
	if _, err := first.docs.Update(ctx, "it_003", func(d *item) ([]note, error) { d.Rank = 100; return nil, nil }); err != nil {
		t.Fatal(err)
	}
	if err := first.docs.Delete(ctx, "it_004", nil); err != nil {
		t.Fatal(err)
	}
	if n := stopCleanly(t, ctx, first.docs.DB(), dir); n != 39 {
		t.Fatalf("snapshot holds %d rows, want 39", n)
	}

	restored := newItems(process(t, kit, dir))
	restored.load(t, ctx)
	if restored.scans != 0 {
		t.Fatal("a start after a clean stop must read the snapshot, not scan")
	}
	scanned := newItems(mongox.NewDB(kit.DB.Database, mongox.Exclusive))
	scanned.load(t, ctx)
	if got, want := restored.listing(), scanned.listing(); got != want {
		t.Fatalf("order from the snapshot %s, from a scan %s", got, want)
	}
	if got, want := restored.rows(), scanned.rows(); !reflect.DeepEqual(got, want) {
		for id := range want {
			if !reflect.DeepEqual(got[id], want[id]) {
				t.Errorf("row %s\nsnapshot %#v\nscan     %#v", id, got[id], want[id])
			}
		}
		t.Fatal("rows from the snapshot differ from a scan")
	}

	// writes after the restart are seen
	if _, err := restored.docs.Insert(ctx, "it_new", item{ID: "it_new", Rank: -2}); err != nil {
		t.Fatal(err)
	}
	if _, err := restored.docs.Update(ctx, "it_000", func(d *item) ([]note, error) { d.Rank = 1; return nil, nil }); err != nil {
		t.Fatal(err)
	}
	if l := restored.listing(); !strings.HasPrefix(l, "it_new,") || strings.Contains(l, "it_000,") {
		t.Fatalf("writes after a restart from the snapshot: %s", l)
	}
}

// A start after a crash (the previous run opened the snapshot, so its token
// is gone, and never stopped cleanly) scans, and sees that run's writes.
func TestSnapshotAfterACrashScans(t *testing.T) {
	kit := testkit.New(t)
	ctx, dir := kit.Ctx(), t.TempDir()
	first := newItems(process(t, kit, dir))
	first.load(t, ctx)
	seedItems(t, ctx, first, 10)
	stopCleanly(t, ctx, first.docs.DB(), dir)

	crashed := newItems(process(t, kit, dir))
	crashed.load(t, ctx)
	if crashed.scans != 0 {
		t.Fatal("the run after the clean stop should have read the snapshot")
	}
	if _, err := crashed.docs.Insert(ctx, "it_late", item{ID: "it_late", Rank: 0}); err != nil {
		t.Fatal(err)
	}
	// killed here: no WriteSnapshot

	next := newItems(process(t, kit, dir))
	next.load(t, ctx)
	if next.scans != 1 {
		t.Fatal("a start after a crash must scan")
	}
	if _, ok := next.mirror.Get("it_late"); !ok {
		t.Fatal("the write of the crashed run is missing")
	}
	if _, err := os.Stat(mongox.SnapshotPath(dir, kit.DB.Name())); !os.IsNotExist(err) {
		t.Fatalf("the snapshot file must not outlive its token: %v", err)
	}
}

// Any doubt about the snapshot is a scan: a file that does not match its
// token's checksum, a token of another snapshot, a row type that changed,
// a write reported before Load.
func TestSnapshotInDoubtScans(t *testing.T) {
	cases := map[string]func(t *testing.T, kit *testkit.Kit, dir string){
		"corrupted file": func(t *testing.T, kit *testkit.Kit, dir string) {
			path := mongox.SnapshotPath(dir, kit.DB.Name())
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			data[len(data)/2] ^= 0xff
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
		},
		"missing file": func(t *testing.T, kit *testkit.Kit, dir string) {
			if err := os.Remove(mongox.SnapshotPath(dir, kit.DB.Name())); err != nil {
				t.Fatal(err)
			}
		},
		"token of another snapshot": func(t *testing.T, kit *testkit.Kit, dir string) {
			path := mongox.SnapshotPath(dir, kit.DB.Name())
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// an older snapshot's file in place of this one's (its own
			// checksum right, its token another)
			other := newItems(mongox.NewDB(kit.DB.Database, mongox.Exclusive))
			other.load(t, kit.Ctx())
			stopCleanly(t, kit.Ctx(), other.docs.DB(), t.TempDir())
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, spoil := range cases {
		t.Run(name, func(t *testing.T) {
			kit := testkit.New(t)
			ctx, dir := kit.Ctx(), t.TempDir()
			first := newItems(process(t, kit, dir))
			first.load(t, ctx)
			seedItems(t, ctx, first, 8)
			stopCleanly(t, ctx, first.docs.DB(), dir)
			spoil(t, kit, dir)
			next := newItems(process(t, kit, dir))
			next.load(t, ctx)
			if next.scans != 1 || next.mirror.Len() != 8 {
				t.Fatalf("scans %d, rows %d: want one scan of 8 rows", next.scans, next.mirror.Len())
			}
		})
	}
	t.Run("row type changed", func(t *testing.T) {
		kit := testkit.New(t)
		ctx, dir := kit.Ctx(), t.TempDir()
		first := newItems(process(t, kit, dir))
		first.load(t, ctx)
		seedItems(t, ctx, first, 5)
		stopCleanly(t, ctx, first.docs.DB(), dir)
		db := process(t, kit, dir)
		m := mongox.MirrorOf(db, itemColl, func(r *itemV2) string { return r.ID })
		scans := 0
		if err := m.Load(ctx, func(ctx context.Context) ([]itemV2, error) {
			scans++
			return mongox.FindAll[itemV2](ctx, db.Collection(itemColl), bson.M{})
		}); err != nil {
			t.Fatal(err)
		}
		if scans != 1 || m.Len() != 5 {
			t.Fatalf("a changed row type must scan: scans %d, rows %d", scans, m.Len())
		}
	})
	t.Run("write before Load", func(t *testing.T) {
		kit := testkit.New(t)
		ctx, dir := kit.Ctx(), t.TempDir()
		first := newItems(process(t, kit, dir))
		first.load(t, ctx)
		seedItems(t, ctx, first, 5)
		stopCleanly(t, ctx, first.docs.DB(), dir)
		next := newItems(process(t, kit, dir))
		if _, err := next.docs.Insert(ctx, "it_early", item{ID: "it_early"}); err != nil {
			t.Fatal(err)
		}
		next.load(t, ctx)
		if _, ok := next.mirror.Get("it_early"); next.scans != 1 || !ok || next.mirror.Len() != 6 {
			t.Fatalf("a write before Load must make it scan: scans %d, rows %d", next.scans, next.mirror.Len())
		}
	})
}

// A write still in flight (a document lock held) stops the snapshot, and
// the next start scans.
func TestSnapshotNotTakenWhileAWriteIsInFlight(t *testing.T) {
	kit := testkit.New(t)
	ctx, dir := kit.Ctx(), t.TempDir()
	first := newItems(process(t, kit, dir))
	first.load(t, ctx)
	seedItems(t, ctx, first, 3)
	unlock := first.docs.DB().Lock(first.docs.Collection(), "it_000")
	_, err := first.docs.DB().WriteSnapshot(ctx, dir, time.Now().Add(50*time.Millisecond))
	unlock()
	if err == nil {
		t.Fatal("a snapshot must not be taken while a document lock is held")
	}
	next := newItems(process(t, kit, dir))
	next.load(t, ctx)
	if next.scans != 1 {
		t.Fatal("no snapshot was written: the next start must scan")
	}
}

// On a shared database there are no copies: no file, no token.
func TestSnapshotOnASharedDatabaseDoesNothing(t *testing.T) {
	kit := testkit.New(t)
	ctx, dir := kit.Ctx(), t.TempDir()
	db := mongox.NewDB(kit.DB.Database, mongox.Shared)
	if err := db.OpenSnapshot(ctx, dir, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	if mongox.MirrorOf(db, itemColl, func(r *item) string { return r.ID }) != nil {
		t.Fatal("a shared database has no Mirror")
	}
	if n, err := db.WriteSnapshot(ctx, dir, time.Now().Add(time.Second)); n != 0 || err != nil {
		t.Fatalf("WriteSnapshot on a shared database: %d %v", n, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("files written for a shared database: %v", entries)
	}
}

// A row the encoding would not give back equal (here an instant in a named
// zone, which comes back as a fixed offset) is left out of the snapshot:
// its copy scans at the next start.
func TestSnapshotLeavesOutRowsThatDoNotReadBackEqual(t *testing.T) {
	kit := testkit.New(t)
	ctx, dir := kit.Ctx(), t.TempDir()
	first := newItems(process(t, kit, dir))
	first.load(t, ctx)
	seedItems(t, ctx, first, 3)
	zone, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		zone = time.FixedZone("CET", 3600) // a named fixed zone reads back nameless too
	}
	first.mirror.Change("it_001", func(r *item) bool { r.At = r.At.In(zone); return true })
	stopCleanly(t, ctx, first.docs.DB(), dir)
	next := newItems(process(t, kit, dir))
	next.load(t, ctx)
	if next.scans != 1 {
		t.Fatal("a copy whose rows do not read back equal must scan")
	}
}
