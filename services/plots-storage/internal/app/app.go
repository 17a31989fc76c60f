// Package app holds plots-storage's use cases: claim, abandon and look up
// plots, set their permissions, write, read, list and delete plot files
// (the garden among them), and keep continuity backups.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/services/plots-storage/internal/domain"
	"sharedworld.dev/services/plots-storage/internal/events"
	"sharedworld.dev/services/plots-storage/internal/seal"
	"sharedworld.dev/services/plots-storage/internal/store"
)

// CommonsTenancy is the commons' one and only tenancy: it is never abandoned.
const CommonsTenancy = "commons"

// App is the plots-storage application.
type App struct {
	Plots       *store.Plots
	Permissions *store.Permissions
	Usage       *store.Usage
	Files       *store.Files
	Backups     *store.Backups
	Sealer      seal.Sealer
	Clock       clock.Clock
	Log         *slog.Logger
}

// EnsureCommons creates the commons plot, with its claim event, if missing.
func (a *App) EnsureCommons(ctx context.Context) error {
	now := a.Clock.Now().Truncate(time.Millisecond)
	ev, err := events.PlotClaimed(events.ClaimedPlot{PlotID: domain.CommonsPlotID, Cell: domain.Commons,
		Owner: domain.CommonsOwner, DisplayName: domain.CommonsDisplayName, At: now, Version: 1})
	if err != nil {
		return err
	}
	err = a.Plots.Claim(ctx, store.Plot{}, store.Plot{ID: domain.CommonsPlotID, Claimed: true, OwnerKey: domain.CommonsOwner,
		Owner: domain.CommonsOwner, DisplayName: domain.CommonsDisplayName, ClaimedAt: now, Tenancy: CommonsTenancy, Version: 1}, ev)
	if err != nil && !errors.Is(err, store.ErrDuplicate) {
		return fmt.Errorf("create the commons: %w", err)
	}
	return nil
}

// Repair removes what a crash between releasing a plot and deleting its
// files left behind.
func (a *App) Repair(ctx context.Context) error {
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

// background is a context for clean-up that must finish even when the
// request that needed it was cancelled.
func background(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
}
