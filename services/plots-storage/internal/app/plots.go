package app

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// claimAttempts bounds how often a claim or an abandon starts again when
// the citizen's plot changed under it.
const claimAttempts = 5

// Claim gives the citizen the plot at cell. The database decides between
// citizens: a cell's first claim is an insert its _id admits once, later
// ones are versioned changes of the cell, and the plots store admits one
// plot per citizen.
func (a *App) Claim(ctx context.Context, who domain.Agent, cell domain.Coordinates) (domain.Plot, error) {
	if err := domain.ValidateClaim(cell); err != nil {
		return domain.Plot{}, err
	}
	now, tenancy := a.Clock.Now(), domain.NewTenancy()
	for range claimAttempts {
		p, err := a.Plots.Change(ctx, cell, func(p *domain.Plot) ([]domain.Event, error) {
			return single(p.Claim(who, tenancy, now))
		})
		switch {
		case errors.Is(err, domain.ErrBusy):
			return domain.Plot{}, domain.ClaimContended(cell.PlotID())
		case !errors.Is(err, domain.ErrHoldsAPlot):
			return p, err
		}
		owned, err := a.Plots.OwnedBy(ctx, who.ID)
		if err == nil {
			return domain.Plot{}, domain.AlreadyOwner(owned.ID)
		}
		if !errors.Is(err, domain.ErrNotFound) {
			return domain.Plot{}, err
		}
		// The plot that stood in the way was abandoned meanwhile: claim again.
	}
	return domain.Plot{}, domain.ClaimContended(cell.PlotID())
}

// errLetGo ends a release of a plot the citizen no longer holds.
var errLetGo = errors.New("the plot is no longer the citizen's")

// Abandon releases the citizen's plot and deletes its files. It answers
// the plot as it was held and the time of the release.
func (a *App) Abandon(ctx context.Context, who domain.Agent) (domain.Plot, time.Time, error) {
	held, at, err := a.freePlot(ctx, who.ID)
	if errors.Is(err, domain.ErrNotFound) {
		return held, at, domain.NoPlotToAbandon()
	}
	return held, at, err
}

// ReleaseTombstoned releases the plot of a citizen who was tombstoned, as
// an abandon would (plot.released, files deleted). A citizen who holds no
// plot, or no longer does, needs nothing: a repeated tombstone changes
// nothing.
func (a *App) ReleaseTombstoned(ctx context.Context, agentID string) error {
	held, _, err := a.freePlot(ctx, agentID)
	if errors.Is(err, domain.ErrNotFound) {
		return nil
	}
	if err == nil {
		a.Log.Info("released the plot of a tombstoned citizen", slog.String("plot_id", held.ID), slog.String("agent_id", agentID))
	}
	return err
}

// freePlot frees the plot agentID holds; domain.ErrNotFound when it holds none.
func (a *App) freePlot(ctx context.Context, agentID string) (domain.Plot, time.Time, error) {
	now := a.Clock.Now()
	for range claimAttempts {
		owned, err := a.Plots.OwnedBy(ctx, agentID)
		if err != nil {
			return domain.Plot{}, time.Time{}, err
		}
		var held domain.Plot
		_, err = a.Plots.Change(ctx, owned.Cell, func(p *domain.Plot) ([]domain.Event, error) {
			if !p.HeldBy(agentID) {
				return nil, errLetGo // abandoned meanwhile: look again
			}
			held = *p
			return []domain.Event{p.Release(now)}, nil
		})
		switch {
		case errors.Is(err, errLetGo):
			continue
		case errors.Is(err, domain.ErrBusy):
			return domain.Plot{}, time.Time{}, domain.AbandonContended()
		case err != nil:
			return domain.Plot{}, time.Time{}, err
		}
		a.dropTenancy(ctx, held)
		return held, clock.Stored(now), nil
	}
	return domain.Plot{}, time.Time{}, domain.AbandonContended()
}

// dropTenancy deletes what an abandoned plot held. Everything in it is
// invisible already; if this fails, Repair finishes it at the next start.
func (a *App) dropTenancy(ctx context.Context, p domain.Plot) {
	bg, cancel := background(ctx)
	defer cancel()
	for _, drop := range []func() error{
		func() error { return a.Files.DeleteTenancy(bg, p.ID, p.Tenancy) },
		func() error { return a.Usage.DeleteTenancy(bg, p.Tenancy) },
		func() error { return a.Permissions.DeleteTenancy(bg, p.Tenancy) },
	} {
		if err := drop(); err != nil {
			a.Log.Warn("data of an abandoned plot was left for later removal",
				slog.String("plot_id", p.ID), slog.String("error", err.Error()))
		}
	}
}

// Plot returns a claimed plot by id (public).
func (a *App) Plot(ctx context.Context, plotID string) (domain.Plot, error) {
	cell, err := domain.ParsePlotID(plotID)
	if err != nil {
		return domain.Plot{}, err
	}
	p, err := a.Plots.Get(ctx, cell.PlotID())
	if errors.Is(err, domain.ErrNotFound) {
		return p, domain.PlotNotClaimed(plotID)
	}
	return p, err
}

// access is the plot as the access rules see it. Permissions are read only
// when they can matter: not for the owner, not on the commons.
func (a *App) access(ctx context.Context, p domain.Plot, agentID string) (domain.PlotAccess, error) {
	if p.ID == domain.CommonsPlotID || (agentID != domain.Anonymous && agentID == p.Owner) {
		return p.Access(domain.Permissions{}), nil
	}
	perms, err := a.Permissions.Get(ctx, p.Tenancy)
	return p.Access(perms), err
}

// Available lists free cells nearest near, and how many cells are free.
func (a *App) Available(ctx context.Context, near domain.Coordinates, limit int) ([]domain.Coordinates, int64, error) {
	if err := domain.ValidateCell(near); err != nil {
		return nil, 0, err
	}
	cells, err := a.Plots.NearestFree(ctx, near, limit)
	if err != nil {
		return nil, 0, err
	}
	claimed, err := a.Plots.CountClaimed(ctx)
	if err != nil {
		return nil, 0, err
	}
	return cells, max(domain.GridCells-claimed, 0), nil
}

// ListPlots pages through claimed plots by x then y.
func (a *App) ListPlots(ctx context.Context, after *domain.Coordinates, limit int) ([]domain.Plot, error) {
	return a.Plots.ListClaimed(ctx, after, limit)
}

// PlotPermissions returns a plot's permissions to its owner.
func (a *App) PlotPermissions(ctx context.Context, agentID, plotID string) (domain.Plot, domain.Permissions, error) {
	p, err := a.Plot(ctx, plotID)
	if err != nil {
		return p, domain.Permissions{}, err
	}
	if err := domain.AuthorizeOwner(p.Access(domain.Permissions{}), agentID); err != nil {
		return p, domain.Permissions{}, err
	}
	perms, err := a.Permissions.Get(ctx, p.Tenancy)
	return p, perms, err
}

// SetPermissions replaces a plot's five permission fields (owner only).
func (a *App) SetPermissions(ctx context.Context, agentID, plotID string, in domain.PermissionsInput) (domain.Plot, domain.Permissions, error) {
	p, err := a.Plot(ctx, plotID)
	if err != nil {
		return p, domain.Permissions{}, err
	}
	if err := domain.AuthorizeOwner(p.Access(domain.Permissions{}), agentID); err != nil {
		return p, domain.Permissions{}, err
	}
	perms, err := domain.NewPermissions(in)
	if err != nil {
		return p, perms, err
	}
	return p, perms, a.Permissions.Put(ctx, p.Tenancy, perms)
}
