// Package app holds plots-storage's use cases: claim, abandon and look up
// plots, set their permissions, write, read, list and delete plot files
// (the garden among them), and keep continuity backups. Storage is reached
// through the repositories of ports.go, which the service wires in.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/seal"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// App is the plots-storage application.
type App struct {
	Plots       Plots
	Permissions Permissions
	Usage       Usage
	Files       Files
	Backups     Backups
	Sealer      seal.Sealer
	Clock       clock.Clock
	Log         *slog.Logger

	deferred deferredConfirms
}

// errCommonsHeld ends EnsureCommons' change when the commons exists.
var errCommonsHeld = errors.New("the commons is held")

// EnsureCommons creates the commons plot, with its claim event, if missing.
func (a *App) EnsureCommons(ctx context.Context) error {
	now := a.Clock.Now()
	_, err := a.Plots.Change(ctx, domain.Commons, func(p *domain.Plot) ([]domain.Event, error) {
		if p.Claimed {
			return nil, errCommonsHeld
		}
		return single(p.Claim(domain.CommonsAgent, domain.CommonsTenancy, now))
	})
	if err != nil && !errors.Is(err, errCommonsHeld) {
		return fmt.Errorf("create the commons: %w", err)
	}
	return nil
}

// Repair removes what a crash between releasing a plot and deleting its
// files left behind, and settles the quota holds of writes a crash cut off.
func (a *App) Repair(ctx context.Context) error {
	if err := a.SettleHolds(ctx); err != nil {
		return err
	}
	if err := a.countGarden(ctx); err != nil {
		return err
	}
	cutoff := a.Clock.Now().Add(-time.Minute)
	live, err := a.Plots.Tenancies(ctx)
	if err != nil {
		return err
	}
	removed, err := a.Files.DeleteOrphans(ctx, live, cutoff)
	if err != nil {
		return fmt.Errorf("remove orphaned files: %w", err)
	}
	if removed > 0 {
		a.Log.Info("removed files of abandoned plots", slog.Int64("documents", removed))
	}
	return nil
}

// single is a change's one event, or its refusal.
func single(ev domain.Event, err error) ([]domain.Event, error) {
	if err != nil {
		return nil, err
	}
	return []domain.Event{ev}, nil
}

// background is a context for clean-up that must finish even when the
// request that needed it was cancelled.
func background(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
}
