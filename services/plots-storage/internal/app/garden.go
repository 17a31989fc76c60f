package app

import (
	"context"
	"errors"

	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// The garden keeps two kinds of account: the commons tenancy's (the
// garden as a whole, domain.GardenQuota) and one per planter, its share
// (domain.OwnShare). A garden write or removal holds room on both under one
// hold id, and the head it writes names that id, so each account settles
// it on its own after a crash (quota.go).

// ShareAccount is the usage account of agentID's share of the garden. Agent
// ids are hex and tenancies hex or "commons", so it names no tenancy.
func ShareAccount(agentID string) string { return "garden_share:" + agentID }

// reserveShare holds the room a garden write of next over cur needs in its
// planter's share: the planter's own quota when it writes itself, the
// planter's share as seen by another citizen when it tends someone else's
// planting. A removed head planted by another citizen is confirmed on that
// citizen's share first, before the head stops naming the removal.
func (a *App) reserveShare(ctx context.Context, writer string, cur domain.File, next domain.File, h domain.Hold) error {
	if cur.Removed && cur.PlantedBy != "" && cur.PlantedBy != next.PlantedBy {
		if _, err := a.changeAccount(ctx, ShareAccount(cur.PlantedBy), a.lapsed, func(acc *domain.Account) error {
			acc.Confirm(cur.Hold)
			return nil
		}); err != nil {
			return err
		}
	}
	if next.PlantedBy == "" {
		return nil
	}
	q := domain.OwnShare
	if next.PlantedBy != writer {
		q = domain.PlantersShare
	}
	_, err := a.changeAccount(ctx, ShareAccount(next.PlantedBy), a.lapsed, func(acc *domain.Account) error {
		acc.Confirm(cur.Hold)
		return acc.ReserveWithin(h, q)
	})
	return err
}

// settleShare confirms (landed) or releases h on planter's share; nothing
// for the index, which no share counts.
func (a *App) settleShare(ctx context.Context, planter string, h domain.Hold, landed bool) {
	switch {
	case planter == "":
	case landed:
		a.confirm(ctx, ShareAccount(planter), h)
	default:
		a.release(ctx, ShareAccount(planter), h)
	}
}

// RemoveGardenFile removes a garden file: its planter may, and a curator
// (the ambassador) may remove any. The head stays, marked removed and
// naming the removal's hold, which gives the file's room back to the
// garden and to its planter's share once the removal landed.
func (a *App) RemoveGardenFile(ctx context.Context, by domain.Remover, path string) (domain.File, error) {
	if err := domain.ValidatePath(path); err != nil {
		return domain.File{}, err
	}
	if !domain.InGarden(path) {
		return domain.File{}, problem.Invalid("path "+path+" is not in the garden",
			"garden files are /garden/<name>/<item>.md or /garden/index.md")
	}
	if err := domain.ValidateGardenPath(path); err != nil {
		return domain.File{}, err
	}
	for range commitAttempts {
		f, err := a.removeOnce(ctx, by, path)
		if errors.Is(err, errResized) || errors.Is(err, domain.ErrBusy) || errors.Is(err, errHoldLapsed) {
			continue // a write or another removal came first: read again
		}
		return f, err
	}
	return domain.File{}, domain.FileBusy(path, "remove")
}

func (a *App) removeOnce(ctx context.Context, by domain.Remover, path string) (domain.File, error) {
	cur, err := a.Files.Head(ctx, domain.CommonsPlotID, domain.CommonsTenancy, path)
	if err != nil {
		return domain.File{}, err
	}
	if !cur.Exists() {
		return domain.File{}, domain.FileNotFound(domain.CommonsPlotID, path)
	}
	if err := domain.AuthorizeGardenRemoval(cur, by); err != nil {
		return domain.File{}, err
	}
	hold := a.newHold(domain.CommonsPlotID, path, domain.Change{})
	hold.Frees = domain.DeleteChange(cur.Size)
	// Both accounts record the removal before the head changes; its room
	// comes back only once the head names it (Confirm applies Frees).
	if err := a.reserveShare(ctx, by.AgentID, cur, domain.File{PlantedBy: cur.PlantedBy}, hold); err != nil {
		return domain.File{}, err
	}
	usage, at, err := a.reserve(ctx, domain.CommonsTenancy, hold, cur.Hold)
	if err != nil {
		a.settleShare(ctx, cur.PlantedBy, hold, false)
		return domain.File{}, err
	}
	// The removal tells the world in the same write as the head: the
	// count the garden will hold, dated in the order of the garden's holds.
	removed := domain.GardenRemoved{Path: path, AgentID: by.AgentID, Role: by.Role, PlantedBy: cur.PlantedBy,
		Files: usage.Files, At: at}
	_, err = a.Files.Change(ctx, domain.CommonsPlotID, domain.CommonsTenancy, path, func(f *domain.File) ([]domain.Event, error) {
		if f.Version != cur.Version {
			return nil, errResized
		}
		if a.Clock.Now().After(hold.Until) {
			return nil, errHoldLapsed
		}
		*f = domain.File{PlotID: f.PlotID, Tenancy: f.Tenancy, Path: f.Path, Version: f.Version, WrittenAt: at,
			WrittenBy: by.AgentID, Hold: hold.ID, PlantedBy: cur.PlantedBy, Removed: true}
		return []domain.Event{removed}, nil
	})
	switch {
	case errors.Is(err, errResized) || errors.Is(err, errHoldLapsed) || errors.Is(err, domain.ErrBusy):
		a.release(ctx, domain.CommonsTenancy, hold)
		a.settleShare(ctx, cur.PlantedBy, hold, false)
		return domain.File{}, err
	case err != nil:
		return domain.File{}, err // the holds stay; the head settles them once they lapse
	}
	a.confirm(ctx, domain.CommonsTenancy, hold)
	a.settleShare(ctx, cur.PlantedBy, hold, true)
	a.dropBlob(ctx, cur.BlobID)
	return cur, nil
}
