package domain

import (
	"errors"
	"testing"
	"time"
)

func TestCitizenChanges(t *testing.T) {
	now := time.Date(2026, 11, 22, 9, 15, 3, 127_999_999, time.UTC)
	stored := time.Date(2026, 11, 22, 9, 15, 3, 127_000_000, time.UTC) // whole milliseconds, as stored
	pending := NewPending("emb_a", Profile{Name: "Ada", DirectoryVisible: true}, now)
	living := pending
	living.Status, living.Number, living.Version = StatusLiving, 7, 1
	tombstoned := living
	tombstoned.Status, tombstoned.Version = StatusTombstoned, 2

	cases := []struct {
		name    string
		from    Citizen
		change  func(*Citizen) (Event, error)
		want    Event
		err     error
		version uint64
	}{
		{"§3 a claim becomes citizen 1 of its number", pending, func(c *Citizen) (Event, error) { return c.Activate(7) },
			Registered{AgentID: "emb_a", Name: "Ada", Number: 7, RegisteredAt: stored, DirectoryVisible: true, Version: 1}, nil, 1},
		{"activating a living citizen again is no change", living, func(c *Citizen) (Event, error) { return c.Activate(8) }, nil, nil, 1},
		{"§3 a living citizen changes its profile", living, func(c *Citizen) (Event, error) {
			return c.ChangeProfile(ProfileChange{Name: ptr("Eva")}, now)
		}, Updated{AgentID: "emb_a", Name: "Eva", DirectoryVisible: true, UpdatedAt: stored, Version: 2}, nil, 2},
		{"§3 a pending claim has no profile to change", pending, func(c *Citizen) (Event, error) {
			return c.ChangeProfile(ProfileChange{Name: ptr("Eva")}, now)
		}, nil, ErrNoCitizen, 0},
		{"§3 a tombstoned citizen has no profile to change", tombstoned, func(c *Citizen) (Event, error) {
			return c.ChangeProfile(ProfileChange{Name: ptr("Eva")}, now)
		}, nil, ErrNoCitizen, 2},
		{"§3 living is tombstoned", living, func(c *Citizen) (Event, error) { return c.Tombstone(now) },
			Tombstoned{AgentID: "emb_a", TombstonedAt: stored, Version: 2}, nil, 2},
		{"§3 tombstoned twice is a conflict", tombstoned, func(c *Citizen) (Event, error) { return c.Tombstone(now) }, nil, ErrAlreadyTombstoned, 2},
	}
	for _, c := range cases {
		cit := c.from
		ev, err := c.change(&cit)
		if !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.err)
			continue
		}
		if ev != c.want || cit.Version != c.version {
			t.Errorf("%s: event %+v version %d, want %+v version %d", c.name, ev, cit.Version, c.want, c.version)
		}
	}
	if !pending.RegisteredAt.Equal(stored) || pending.Status != StatusPending || pending.Version != 0 {
		t.Errorf("a claim is pending at version 0, registered at a stored time: %+v", pending)
	}
}
