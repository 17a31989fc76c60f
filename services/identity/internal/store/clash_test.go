package store

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/identity/internal/domain"
)

// Another replica writes between this one's read and its write. Each
// store, a MongoDB adapter (the mirrored one is its database's only
// writer), has a Shared handle of its own (its own document locks), as two
// replicas on MongoDB do, whatever mode the kit is in.
func TestChangeOnASharedDatabase(t *testing.T) {
	kit := testkit.New(t)
	ctx := kit.Ctx()
	mine := newCitizens(t, kit.SharedDB())
	replica := newCitizens(t, kit.SharedDB())
	now := clock.Stored(time.Now())
	const id = "emb_shared"
	register(t, ctx, mine, id, domain.Profile{Name: "Shared"}, now)

	t.Run("a version clash reruns the change on the replica's result", func(t *testing.T) {
		seen := now.Add(time.Second)
		interleaved := 0
		mine.docs.BeforeWrite = func(ctx context.Context, id string) {
			if interleaved > 0 {
				return
			}
			interleaved++
			if _, err := replica.Change(ctx, id, growBio("r", now)); err != nil {
				t.Error(err)
			}
			if err := replica.Touch(ctx, id, seen, seen); err != nil {
				t.Error(err)
			}
		}
		defer func() { mine.docs.BeforeWrite = nil }()
		runs := 0
		c, err := mine.Change(ctx, id, func(c *domain.Citizen) (domain.Event, error) {
			runs++
			return growBio("m", now)(c)
		})
		if err != nil || runs != 2 || c.Bio != "rm" || c.Version != 3 || !c.LastSeenAt.Equal(seen) {
			t.Fatalf("want the change run twice and applied once on top of the replica's: runs %d, %+v, %v", runs, c, err)
		}
		if got := typesAndVersions(t, outboxOf(t, mine, id)); fmt.Sprint(got) != "[registered@1 updated@2 updated@3]" {
			t.Fatalf("outbox: %v", got)
		}
	})

	t.Run("a sighting stored meanwhile survives a change", func(t *testing.T) {
		// Presence moves no version, so the change's guarded write goes
		// through: it must not write back the presence it read.
		seen := now.Add(2 * time.Second)
		mine.docs.BeforeWrite = func(ctx context.Context, id string) {
			if err := replica.Touch(ctx, id, seen, seen); err != nil {
				t.Error(err)
			}
		}
		defer func() { mine.docs.BeforeWrite = nil }()
		if _, err := mine.Change(ctx, id, growBio("m", now)); err != nil {
			t.Fatal(err)
		}
		c, _, err := mine.Get(ctx, id)
		if err != nil || c.Bio != "rmm" || c.Version != 4 || !c.LastSeenAt.Equal(seen) || !c.LastSignedAt.Equal(seen) {
			t.Fatalf("after a change with a sighting stored meanwhile: %+v %v", c, err)
		}
	})

	t.Run("a citizen changed under every attempt ends in a clash", func(t *testing.T) {
		mine.docs.BeforeWrite = func(ctx context.Context, id string) {
			_, _ = replica.Change(ctx, id, growBio("r", now))
		}
		defer func() { mine.docs.BeforeWrite = nil }()
		if _, err := mine.Change(ctx, id, growBio("m", now)); !errors.Is(err, mongox.ErrVersionClash) {
			t.Fatalf("want ErrVersionClash, got %v", err)
		}
	})
}
