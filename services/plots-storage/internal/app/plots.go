package app

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"sharedworld.dev/pkg/citizens"
	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/services/plots-storage/internal/domain"
	"sharedworld.dev/services/plots-storage/internal/events"
	"sharedworld.dev/services/plots-storage/internal/store"
)

// claimAttempts bounds retries when another replica changes a cell between
// our read and our write.
const claimAttempts = 5

// Claim gives the citizen the plot at cell. The database decides between
// citizens: a cell's first claim is an insert its _id admits once, and the
// owner_key unique index admits one plot per citizen.
func (a *App) Claim(ctx context.Context, who citizens.Citizen, cell domain.Coordinates) (store.Plot, error) {
	if err := domain.ValidateClaim(cell); err != nil {
		return store.Plot{}, err
	}
	for range claimAttempts {
		p, err := a.claimOnce(ctx, who, cell)
		if errors.Is(err, store.ErrVersionClash) {
			continue
		}
		return p, err
	}
	return store.Plot{}, problem.Conflict(cell.PlotID()+" changed hands while claiming", "retry the claim")
}

func (a *App) claimOnce(ctx context.Context, who citizens.Citizen, cell domain.Coordinates) (store.Plot, error) {
	id := cell.PlotID()
	defer a.Plots.Lock(id)()
	prev, err := a.Plots.Cell(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return store.Plot{}, err
	case prev.Claimed && prev.Owner == who.AgentID:
		return store.Plot{}, domain.AlreadyOwner(id)
	case prev.Claimed:
		return store.Plot{}, domain.CellTaken(cell)
	}
	now := a.Clock.Now().Truncate(time.Millisecond)
	p := store.Plot{ID: id, X: cell.X, Y: cell.Y, Claimed: true, OwnerKey: who.AgentID, Owner: who.AgentID,
		DisplayName: who.Name, ClaimedAt: now, Tenancy: store.NewTenancy(), Version: prev.Version + 1}
	ev, err := events.PlotClaimed(events.ClaimedPlot{PlotID: id, Cell: cell, Owner: who.AgentID,
		DisplayName: who.Name, At: now, Version: p.Version})
	if err != nil {
		return store.Plot{}, err
	}
	err = a.Plots.Claim(ctx, prev, p, ev)
	if !errors.Is(err, store.ErrDuplicate) {
		return p, err
	}
	// Refused by an index: the citizen's one plot, or the cell's first claim.
	owned, err := a.Plots.OwnedBy(ctx, who.AgentID)
	if err == nil {
		return store.Plot{}, domain.AlreadyOwner(owned.ID)
	}
	if !errors.Is(err, store.ErrNotFound) {
		return store.Plot{}, err
	}
	return store.Plot{}, domain.CellTaken(cell)
}

// Abandon releases the citizen's plot and deletes its files.
func (a *App) Abandon(ctx context.Context, who citizens.Citizen) (store.Plot, time.Time, error) {
	for range claimAttempts {
		owned, err := a.Plots.OwnedBy(ctx, who.AgentID)
		if errors.Is(err, store.ErrNotFound) {
			return owned, time.Time{}, domain.NoPlotToAbandon()
		}
		if err != nil {
			return owned, time.Time{}, err
		}
		p, at, err := a.releaseOnce(ctx, who, owned.ID)
		if errors.Is(err, store.ErrVersionClash) {
			continue
		}
		if err != nil {
			return p, at, err
		}
		a.dropTenancy(ctx, p)
		return p, at, nil
	}
	return store.Plot{}, time.Time{}, problem.Conflict("your plot changed while abandoning it", "retry")
}

func (a *App) releaseOnce(ctx context.Context, who citizens.Citizen, plotID string) (store.Plot, time.Time, error) {
	defer a.Plots.Lock(plotID)()
	p, err := a.Plots.Cell(ctx, plotID)
	if err != nil {
		return p, time.Time{}, err
	}
	if !p.Claimed || p.Owner != who.AgentID {
		return p, time.Time{}, store.ErrVersionClash // abandoned meanwhile: look again
	}
	now := a.Clock.Now().Truncate(time.Millisecond)
	ev, err := events.PlotReleased(p.ID, p.Cell(), p.Owner, now, p.Version+1)
	if err != nil {
		return p, now, err
	}
	return p, now, a.Plots.Release(ctx, p, ev)
}

// dropTenancy deletes what an abandoned plot held. Everything in it is
// invisible already; if this fails, Repair finishes it at the next start.
func (a *App) dropTenancy(ctx context.Context, p store.Plot) {
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
func (a *App) Plot(ctx context.Context, plotID string) (store.Plot, error) {
	cell, err := domain.ParsePlotID(plotID)
	if err != nil {
		return store.Plot{}, err
	}
	p, err := a.Plots.Get(ctx, cell.PlotID())
	if errors.Is(err, store.ErrNotFound) {
		return p, domain.PlotNotClaimed(plotID)
	}
	return p, err
}

// access is the plot as the access rules see it. Permissions are read only
// when they can matter: not for the owner, not on the commons.
func (a *App) access(ctx context.Context, p store.Plot, agentID string) (domain.Plot, error) {
	ap := domain.Plot{ID: p.ID, Owner: p.Owner}
	if p.ID == domain.CommonsPlotID || (agentID != domain.Anonymous && agentID == p.Owner) {
		return ap, nil
	}
	perms, err := a.Permissions.Get(ctx, p.Tenancy)
	ap.Permissions = perms
	return ap, err
}

// Available lists free cells nearest near, and how many cells are free.
func (a *App) Available(ctx context.Context, near domain.Coordinates, limit int) ([]domain.Coordinates, int64, error) {
	if err := domain.ValidateCell(near); err != nil {
		return nil, 0, err
	}
	cells, err := domain.NearestAvailable(ctx, near, limit, a.Plots.ClaimedIn)
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
func (a *App) ListPlots(ctx context.Context, after *domain.Coordinates, limit int) ([]store.Plot, error) {
	return a.Plots.ListClaimed(ctx, after, limit)
}

// PlotPermissions returns a plot's permissions to its owner.
func (a *App) PlotPermissions(ctx context.Context, agentID, plotID string) (store.Plot, domain.Permissions, error) {
	p, err := a.Plot(ctx, plotID)
	if err != nil {
		return p, domain.Permissions{}, err
	}
	if err := domain.AuthorizeOwner(domain.Plot{ID: p.ID, Owner: p.Owner}, agentID); err != nil {
		return p, domain.Permissions{}, err
	}
	perms, err := a.Permissions.Get(ctx, p.Tenancy)
	return p, perms, err
}

// SetPermissions replaces a plot's five permission fields (owner only).
func (a *App) SetPermissions(ctx context.Context, agentID, plotID string, in domain.PermissionsInput) (store.Plot, domain.Permissions, error) {
	p, err := a.Plot(ctx, plotID)
	if err != nil {
		return p, domain.Permissions{}, err
	}
	if err := domain.AuthorizeOwner(domain.Plot{ID: p.ID, Owner: p.Owner}, agentID); err != nil {
		return p, domain.Permissions{}, err
	}
	perms, err := domain.NewPermissions(in)
	if err != nil {
		return p, perms, err
	}
	return p, perms, a.Permissions.Put(ctx, p.Tenancy, perms)
}
