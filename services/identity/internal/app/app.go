// Package app holds identity's use cases: register, look up, profile,
// directory, presence and tombstone. Each asks the domain, then the
// repository; storage and messages are adapters wired in by the service.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/services/identity/internal/domain"
)

// App is the identity application.
type App struct {
	repo     domain.Repository
	clock    clock.Clock
	log      *slog.Logger
	Presence *Presence
}

// New wires the application.
func New(repo domain.Repository, clk clock.Clock, log *slog.Logger) *App {
	return &App{
		repo: repo, clock: clk, log: log,
		Presence: newPresence(repo, clk, log),
	}
}

// Register makes agentID a citizen with the next citizen number. The
// agent_id is claimed first (a unique _id decides between concurrent
// requests), so a refused duplicate never consumes a number.
func (a *App) Register(ctx context.Context, agentID string, ch domain.ProfileChange) (domain.Citizen, error) {
	profile, err := domain.Profile{}.Apply(ch)
	if err != nil {
		return domain.Citizen{}, err
	}
	err = a.repo.Claim(ctx, domain.NewPending(agentID, profile, a.clock.Now()))
	if errors.Is(err, domain.ErrClaimed) {
		existing, _, err := a.repo.Get(ctx, agentID)
		if err != nil {
			return domain.Citizen{}, err
		}
		if existing.Status != domain.StatusPending {
			return domain.Citizen{}, domain.RegisterConflict(existing.Status)
		}
		// A claim still pending is a registration a crash interrupted (its
		// caller never heard back) or one in flight: finish it here rather
		// than answer 409 to an agent whoami calls unregistered.
	} else if err != nil {
		return domain.Citizen{}, err
	}
	c, made, err := a.activate(ctx, agentID)
	if err != nil {
		return domain.Citizen{}, err
	}
	if !made { // another call finished this registration: this one is a repeat
		return domain.Citizen{}, domain.RegisterConflict(c.Status)
	}
	return c, nil
}

// activate numbers a pending citizen and makes it living; made reports
// whether this call did it (exactly one of racing callers does).
func (a *App) activate(ctx context.Context, agentID string) (c domain.Citizen, made bool, err error) {
	n, err := a.repo.NumberFor(ctx, agentID)
	if err != nil {
		return domain.Citizen{}, false, err
	}
	c, err = a.repo.Change(ctx, agentID, func(c *domain.Citizen) (domain.Event, error) {
		ev, err := c.Activate(n)
		made = ev != nil // the last run decides: a clash reruns the change
		return ev, err
	})
	return c, made, err
}

// RepairPending finishes registrations a crash left between claim and
// numbering (run at start; a live request never leaves one behind).
func (a *App) RepairPending(ctx context.Context) error {
	stale, err := a.repo.Pending(ctx, a.clock.Now().Add(-time.Minute))
	if err != nil {
		return fmt.Errorf("find pending registrations: %w", err)
	}
	for _, c := range stale {
		if _, _, err := a.activate(ctx, c.AgentID); err != nil {
			return err
		}
		a.log.Info("completed an interrupted registration", slog.String("agent_id", c.AgentID))
	}
	return nil
}

// Find returns the agent's citizen record in any status; found is false
// for an agent that never claimed one.
func (a *App) Find(ctx context.Context, agentID string) (domain.Citizen, bool, error) {
	return a.repo.Get(ctx, agentID)
}

// Citizen returns a living citizen.
func (a *App) Citizen(ctx context.Context, agentID string) (domain.Citizen, error) {
	c, found, err := a.repo.Get(ctx, agentID)
	if err != nil {
		return c, err
	}
	if !found || c.Status != domain.StatusLiving {
		return c, domain.ErrNoCitizen
	}
	return c, nil
}

// Lookup is what other services learn about a citizen: living and
// tombstoned ones are found, a pending claim is not a citizen yet.
func (a *App) Lookup(ctx context.Context, agentID string) (domain.Citizen, bool, error) {
	c, found, err := a.repo.Get(ctx, agentID)
	if err != nil || !found || c.Status == domain.StatusPending {
		return domain.Citizen{}, false, err
	}
	return c, true, nil
}

// Online reports presence from the newest of stored and in-memory sightings.
func (a *App) Online(c domain.Citizen) bool {
	_, signed := a.Presence.Latest(c.AgentID)
	if c.LastSignedAt.After(signed) {
		signed = c.LastSignedAt
	}
	return domain.Online(signed, a.clock.Now())
}

// Now is the world's time (the development clock moves it).
func (a *App) Now() time.Time { return a.clock.Now() }

// LastSeen returns the newest last_seen_at.
func (a *App) LastSeen(c domain.Citizen) time.Time {
	seen, _ := a.Presence.Latest(c.AgentID)
	if c.LastSeenAt.After(seen) {
		return c.LastSeenAt
	}
	return seen
}

// UpdateProfile applies a partial profile change to a living citizen.
func (a *App) UpdateProfile(ctx context.Context, agentID string, ch domain.ProfileChange) (domain.Citizen, error) {
	now := a.clock.Now()
	return a.repo.Change(ctx, agentID, func(c *domain.Citizen) (domain.Event, error) { return c.ChangeProfile(ch, now) })
}

// Tombstone ends a citizen: it stops counting and cannot act.
func (a *App) Tombstone(ctx context.Context, agentID string) (domain.Citizen, error) {
	now := a.clock.Now()
	return a.repo.Change(ctx, agentID, func(c *domain.Citizen) (domain.Event, error) { return c.Tombstone(now) })
}

// Directory lists visible named citizens.
func (a *App) Directory(ctx context.Context, q domain.DirectoryQuery) ([]domain.Citizen, int64, error) {
	return a.repo.Directory(ctx, q)
}
