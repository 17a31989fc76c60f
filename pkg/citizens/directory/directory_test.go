package directory_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"sharedworld.dev/pkg/citizens"
	"sharedworld.dev/pkg/citizens/directory"
	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
	identityv1 "sharedworld.dev/proto/identity/v1"
)

func TestMain(m *testing.M) { testkit.Main(m) }

type fixed map[string]citizens.Citizen

func (f fixed) Lookup(_ context.Context, id string) (citizens.Citizen, bool, error) {
	c, ok := f[id]
	return c, ok, nil
}

func TestDirectoryAppliesIdempotentlyAndInOrder(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	for _, mode := range []mongox.Mode{mongox.Shared, mongox.Exclusive} {
		kit.DB.Collection("citizens").Drop(ctx)
		dir := directory.New(mongox.NewDB(kit.DB.Database, mode), nil)
		id := "emb_0a1b2c3d4e5f6a7b8c9de1f2"
		reg := events.MustNew("/services/identity", id, &identityv1.CitizenRegistered{AgentId: id, Name: "Ada", CitizenNumber: 7, RegisteredAt: timestamppb.Now(), Version: 1}, time.Now())
		upd := events.MustNew("/services/identity", id, &identityv1.CitizenUpdated{AgentId: id, Name: "Ada L", Version: 2}, time.Now())
		tomb := events.MustNew("/services/identity", id, &identityv1.CitizenTombstoned{AgentId: id, Version: 3}, time.Now())
		for _, e := range []events.Event{reg, upd, reg, tomb, upd} { // repeats and a late, older update
			if err := dir.Apply(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		c, found, err := dir.Lookup(ctx, id)
		if err != nil || !found {
			t.Fatalf("lookup: %v %v", found, err)
		}
		if c.Name != "Ada L" || c.Number != 7 || !c.Tombstoned || c.Version != 3 {
			t.Fatalf("projection after repeated and out-of-order events: %+v", c)
		}
	}
}

func TestDirectoryFallsBackAndCaches(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	id := "emb_ffffffffffffffffffffffff"
	src := fixed{id: {AgentID: id, Name: "New", Number: 1, Version: 1}}
	dir := directory.New(kit.DB, src)
	c, found, err := dir.Lookup(ctx, id)
	if err != nil || !found || c.Name != "New" {
		t.Fatalf("fallback lookup: %+v %v %v", c, found, err)
	}
	delete(src, id)
	if c, found, _ := dir.Lookup(ctx, id); !found || c.Name != "New" {
		t.Fatal("a citizen found through the fallback must be cached")
	}
	if _, found, _ := dir.Lookup(ctx, "emb_000000000000000000000000"); found {
		t.Fatal("an unknown agent must not be found")
	}
}

// A living answer is not trusted for long: once identity says tombstoned,
// the directory says so within a second, even if no event ever comes.
func TestDirectoryAsksAgainAboutALivingCitizen(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	id := "emb_aaaaaaaaaaaaaaaaaaaaaaaa"
	src := fixed{id: {AgentID: id, Name: "Ada", Number: 1, Version: 1}}
	dir := directory.New(kit.DB, src)
	if c, found, err := dir.Lookup(ctx, id); err != nil || !found || c.Tombstoned {
		t.Fatalf("first lookup: %+v %v %v", c, found, err)
	}
	src[id] = citizens.Citizen{AgentID: id, Name: "Ada", Number: 1, Tombstoned: true, Version: 2}
	testkit.Eventually(t, time.Second, "the tombstone through the lookup", func() bool {
		c, found, err := dir.Lookup(ctx, id)
		return err == nil && found && c.Tombstoned
	})
	delete(src, id) // stored: a tombstone is final and asks no more
	if c, found, _ := dir.Lookup(ctx, id); !found || !c.Tombstoned || c.Version != 2 {
		t.Fatalf("the tombstone must be kept: %+v %v", c, found)
	}
}

type down struct{}

func (down) Lookup(context.Context, string) (citizens.Citizen, bool, error) {
	return citizens.Citizen{}, false, errors.New("identity is unreachable")
}

// When identity cannot be asked, the projection answers for the citizens it
// holds (nobody can be tombstoned meanwhile) and an unknown agent is an error.
func TestDirectoryAnswersFromTheProjectionWhileIdentityIsDown(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	id := "emb_bbbbbbbbbbbbbbbbbbbbbbbb"
	dir := directory.New(kit.DB, down{})
	reg := events.MustNew("/services/identity", id, &identityv1.CitizenRegistered{AgentId: id, Name: "Bo", CitizenNumber: 2, RegisteredAt: timestamppb.Now(), Version: 1}, time.Now())
	if err := dir.Apply(ctx, reg); err != nil {
		t.Fatal(err)
	}
	if c, found, err := dir.Lookup(ctx, id); err != nil || !found || c.Name != "Bo" {
		t.Fatalf("known citizen while identity is down: %+v %v %v", c, found, err)
	}
	if _, _, err := dir.Lookup(ctx, "emb_cccccccccccccccccccccccc"); err == nil {
		t.Fatal("an agent the projection does not hold needs identity: want the error")
	}
}

// Every write drops what a read cached: the answer after the last event is
// the last event's, however reads and writes interleave, in both modes.
func TestDirectoryReadsNeverKeepAnOlderCitizen(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	for _, mode := range []mongox.Mode{mongox.Shared, mongox.Exclusive} {
		kit.DB.Collection("citizens").Drop(ctx)
		dir := directory.New(mongox.NewDB(kit.DB.Database, mode), nil)
		id := "emb_bbbbbbbbbbbbbbbbbbbbbbbb"
		reg := events.MustNew("/services/identity", id, &identityv1.CitizenRegistered{AgentId: id, Name: "v1", CitizenNumber: 1, RegisteredAt: timestamppb.Now(), Version: 1}, time.Now())
		if err := dir.Apply(ctx, reg); err != nil {
			t.Fatal(err)
		}
		const renames = 40
		done := make(chan struct{})
		go func() {
			defer close(done)
			for v := uint64(2); v <= renames; v++ {
				upd := events.MustNew("/services/identity", id, &identityv1.CitizenUpdated{AgentId: id, Name: fmt.Sprintf("v%d", v), Version: v}, time.Now())
				if err := dir.Apply(ctx, upd); err != nil {
					t.Error(err)
					return
				}
			}
		}()
		var readers sync.WaitGroup
		for range 4 {
			readers.Add(1)
			go func() {
				defer readers.Done()
				for {
					select {
					case <-done:
						return
					default:
					}
					if _, _, err := dir.Lookup(ctx, id); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		<-done
		readers.Wait()
		c, found, err := dir.Lookup(ctx, id)
		if err != nil || !found || c.Name != fmt.Sprintf("v%d", renames) || c.Version != renames {
			t.Fatalf("mode %v: after the last rename the directory says %+v (found %v, %v)", mode, c, found, err)
		}
		tomb := events.MustNew("/services/identity", id, &identityv1.CitizenTombstoned{AgentId: id, Version: renames + 1}, time.Now())
		if err := dir.Apply(ctx, tomb); err != nil {
			t.Fatal(err)
		}
		if c, _, _ := dir.Lookup(ctx, id); !c.Tombstoned {
			t.Fatalf("mode %v: a tombstone applied after reads must be answered at once: %+v", mode, c)
		}
	}
}

// Living counts the citizens not tombstoned as the projection holds them,
// through registrations, repeated and late events, citizens first learned
// from the fallback, and tombstones; a directory started on a stored
// projection counts it from the database.
func TestDirectoryCountsTheLiving(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	for _, mode := range []mongox.Mode{mongox.Shared, mongox.Exclusive} {
		kit.DB.Collection("citizens").Drop(ctx)
		db := mongox.NewDB(kit.DB.Database, mode)
		id := func(i int) string { return fmt.Sprintf("emb_%024x", i) }
		src := fixed{id(9): {AgentID: id(9), Name: "Fallback", Number: 9, Version: 1}}
		dir := directory.New(db, src)
		reg := func(i int) events.Event {
			return events.MustNew("/services/identity", id(i), &identityv1.CitizenRegistered{AgentId: id(i), Name: "c", CitizenNumber: int64(i), RegisteredAt: timestamppb.Now(), Version: 1}, time.Now())
		}
		rename := func(i int, v uint64) events.Event {
			return events.MustNew("/services/identity", id(i), &identityv1.CitizenUpdated{AgentId: id(i), Name: "r", Version: v}, time.Now())
		}
		tomb := func(i int, v uint64) events.Event {
			return events.MustNew("/services/identity", id(i), &identityv1.CitizenTombstoned{AgentId: id(i), Version: v}, time.Now())
		}
		steps := []struct {
			name string
			do   func() error
			want int64
		}{
			{"nothing stored", func() error { return nil }, 0},
			{"three registered", func() error { return apply(ctx, dir, reg(1), reg(2), reg(3)) }, 3},
			{"a registration repeated", func() error { return apply(ctx, dir, reg(2)) }, 3},
			{"a rename", func() error { return apply(ctx, dir, rename(1, 2)) }, 3},
			{"a tombstone", func() error { return apply(ctx, dir, tomb(2, 2)) }, 2},
			{"the tombstone repeated, then an older rename", func() error { return apply(ctx, dir, tomb(2, 2), rename(2, 1)) }, 2},
			{"a rename before its registration", func() error { return apply(ctx, dir, rename(4, 2), reg(4)) }, 3},
			{"a tombstone before its registration", func() error { return apply(ctx, dir, tomb(5, 2), reg(5)) }, 3},
			{"a citizen learned from the fallback", func() error { _, _, err := dir.Lookup(ctx, id(9)); return err }, 4},
			{"its registration arriving later", func() error { return apply(ctx, dir, reg(9)) }, 4},
		}
		for _, s := range steps {
			if err := s.do(); err != nil {
				t.Fatalf("%v %s: %v", mode, s.name, err)
			}
			got, err := dir.Living(ctx)
			if err != nil {
				t.Fatalf("%v %s: %v", mode, s.name, err)
			}
			stored, err := kit.DB.Collection("citizens").CountDocuments(ctx, map[string]any{"tombstoned": map[string]any{"$ne": true}})
			if err != nil {
				t.Fatal(err)
			}
			if got != s.want || stored != s.want {
				t.Fatalf("%v after %s: Living %d, stored living %d, want %d", mode, s.name, got, stored, s.want)
			}
		}
		again, err := directory.New(db, nil).Living(ctx)
		if err != nil || again != 4 {
			t.Fatalf("%v: a fresh directory counts %d (%v), want 4", mode, again, err)
		}
	}
}

func apply(ctx context.Context, dir *directory.Directory, evs ...events.Event) error {
	for _, e := range evs {
		if err := dir.Apply(ctx, e); err != nil {
			return err
		}
	}
	return nil
}
