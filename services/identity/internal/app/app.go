// Package app holds identity's use cases: register, look up, profile,
// directory, presence and tombstone.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"google.golang.org/protobuf/types/known/timestamppb"

	"sharedworld.dev/pkg/citizens"
	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/events"
	identityv1 "sharedworld.dev/proto/identity/v1"
	"sharedworld.dev/services/identity/internal/domain"
	"sharedworld.dev/services/identity/internal/store"
)

// Source is the CloudEvents source of identity's events.
const Source = "/services/identity"

// App is the identity application.
type App struct {
	Citizens *store.Citizens
	Clock    clock.Clock
	Presence *Presence
	Log      *slog.Logger
}

// New wires the application.
func New(citizensStore *store.Citizens, clk clock.Clock, log *slog.Logger) *App {
	return &App{
		Citizens: citizensStore, Clock: clk, Log: log,
		Presence: &Presence{store: citizensStore, log: log, pending: map[string]sighting{}, latest: map[string]sighting{}},
	}
}

// Register makes agentID a citizen with the next citizen number. The
// agent_id is claimed first (a unique _id decides between concurrent
// requests), so a refused duplicate never consumes a number.
func (a *App) Register(ctx context.Context, agentID string, ch domain.ProfileChange) (store.Citizen, error) {
	profile, err := domain.Profile{}.Apply(ch)
	if err != nil {
		return store.Citizen{}, err
	}
	now := a.Clock.Now()
	c := store.Citizen{AgentID: agentID, Name: profile.Name, RegisteredAt: now, Bio: profile.Bio, Interests: profile.Interests,
		DirectoryVisible: profile.DirectoryVisible, DirectoryBio: profile.DirectoryBio}
	existing, err := a.Citizens.Claim(ctx, c)
	if errors.Is(err, store.ErrExists) {
		return store.Citizen{}, domain.RegisterConflict(existing)
	}
	if err != nil {
		return store.Citizen{}, err
	}
	return a.activate(ctx, c)
}

func (a *App) activate(ctx context.Context, c store.Citizen) (store.Citizen, error) {
	n, err := a.Citizens.NumberFor(ctx, c.AgentID)
	if err != nil {
		return c, err
	}
	ev, err := events.New(Source, c.AgentID, &identityv1.CitizenRegistered{
		AgentId: c.AgentID, Name: c.Name, CitizenNumber: n, RegisteredAt: timestamppb.New(c.RegisteredAt),
		DirectoryVisible: c.DirectoryVisible, Version: 1,
	}, c.RegisteredAt)
	if err != nil {
		return c, err
	}
	if err := a.Citizens.Activate(ctx, c.AgentID, n, ev); err != nil {
		return c, err
	}
	c.Number, c.Status, c.Version = n, domain.StatusLiving, 1
	return c, nil
}

// RepairPending finishes registrations a crash left between claim and
// numbering (run at start; a live request never leaves one behind).
func (a *App) RepairPending(ctx context.Context) error {
	stale, err := a.Citizens.Pending(ctx, a.Clock.Now().Add(-time.Minute))
	if err != nil {
		return fmt.Errorf("find pending registrations: %w", err)
	}
	for _, c := range stale {
		if _, err := a.activate(ctx, c); err != nil {
			return err
		}
		a.Log.Info("completed an interrupted registration", slog.String("agent_id", c.AgentID))
	}
	return nil
}

// Citizen returns a living citizen.
func (a *App) Citizen(ctx context.Context, agentID string) (store.Citizen, error) {
	c, found, err := a.Citizens.Get(ctx, agentID)
	if err != nil {
		return c, err
	}
	if !found || c.Status != domain.StatusLiving {
		return c, domain.ErrNoCitizen
	}
	return c, nil
}

// Lookup is the citizens.Source other services use (living and tombstoned).
func (a *App) Lookup(ctx context.Context, agentID string) (citizens.Citizen, bool, error) {
	c, found, err := a.Citizens.Get(ctx, agentID)
	if err != nil || !found || c.Status == domain.StatusPending {
		return citizens.Citizen{}, false, err
	}
	return citizens.Citizen{AgentID: c.AgentID, Name: c.Name, Number: c.Number, RegisteredAt: c.RegisteredAt,
		Tombstoned: c.Status == domain.StatusTombstoned, Version: c.Version}, true, nil
}

// Online reports presence from the newest of stored and in-memory sightings.
func (a *App) Online(c store.Citizen) bool {
	_, signed := a.Presence.Latest(c.AgentID)
	if c.LastSignedAt.After(signed) {
		signed = c.LastSignedAt
	}
	return domain.Online(signed, time.Now())
}

// LastSeen returns the newest last_seen_at.
func (a *App) LastSeen(c store.Citizen) time.Time {
	seen, _ := a.Presence.Latest(c.AgentID)
	if c.LastSeenAt.After(seen) {
		return c.LastSeenAt
	}
	return seen
}

// UpdateProfile applies a partial profile change, retrying on a version clash.
func (a *App) UpdateProfile(ctx context.Context, agentID string, ch domain.ProfileChange) (store.Citizen, error) {
	defer a.Citizens.Lock(agentID)()
	for attempt := 0; ; attempt++ {
		c, err := a.Citizen(ctx, agentID)
		if err != nil {
			return c, err
		}
		p, err := c.Profile().Apply(ch)
		if err != nil {
			return c, err
		}
		now := a.Clock.Now()
		ev, err := events.New(Source, c.AgentID, &identityv1.CitizenUpdated{AgentId: c.AgentID, Name: p.Name,
			DirectoryVisible: p.DirectoryVisible, UpdatedAt: timestamppb.New(now), Version: c.Version + 1}, now)
		if err != nil {
			return c, err
		}
		set := bson.M{"name": p.Name, "bio": p.Bio, "interests": p.Interests, "directory_visible": p.DirectoryVisible, "directory_bio": p.DirectoryBio}
		err = a.Citizens.Update(ctx, c, set, ev)
		if errors.Is(err, store.ErrVersionClash) && attempt < 10 {
			continue
		}
		if err != nil {
			return c, err
		}
		c.Name, c.Bio, c.Interests, c.DirectoryVisible, c.DirectoryBio = p.Name, p.Bio, p.Interests, p.DirectoryVisible, p.DirectoryBio
		c.Version++
		return c, nil
	}
}

// Tombstone ends a citizen: it stops counting and cannot act.
func (a *App) Tombstone(ctx context.Context, agentID string) (store.Citizen, error) {
	defer a.Citizens.Lock(agentID)()
	for attempt := 0; ; attempt++ {
		c, found, err := a.Citizens.Get(ctx, agentID)
		if err != nil {
			return c, err
		}
		if !found {
			return c, domain.ErrNoCitizen
		}
		next, err := domain.Tombstone(c.Status)
		if err != nil {
			return c, err
		}
		now := a.Clock.Now()
		ev, err := events.New(Source, c.AgentID, &identityv1.CitizenTombstoned{AgentId: c.AgentID, TombstonedAt: timestamppb.New(now), Version: c.Version + 1}, now)
		if err != nil {
			return c, err
		}
		err = a.Citizens.Update(ctx, c, bson.M{"status": next, "tombstoned_at": now}, ev)
		if errors.Is(err, store.ErrVersionClash) && attempt < 10 {
			continue
		}
		if err != nil {
			return c, err
		}
		c.Status, c.TombstonedAt = next, now
		c.Version++
		return c, nil
	}
}

// Directory lists visible named citizens.
func (a *App) Directory(ctx context.Context, q store.DirectoryQuery) ([]store.Citizen, int64, error) {
	return a.Citizens.Directory(ctx, q)
}
