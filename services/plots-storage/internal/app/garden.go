package app

import (
	"context"
	"errors"

	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// The garden keeps an account per planter, its share (domain.OwnShare),
// which draws room from the garden's own account in grants (grant.go); the
// index and files planted before plantings were recorded count on the
// garden's account directly. A garden write or removal holds its room on
// that one account, and the head it writes names the hold, so the account
// settles it after a crash (quota.go).

// ShareAccount is the usage account of agentID's share of the garden. Agent
// ids are hex and tenancies hex or "commons", so it names no tenancy.
func ShareAccount(agentID string) string { return "garden_share:" + agentID }

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
	done := a.Files.Writing(domain.CommonsPlotID, domain.CommonsTenancy, path)
	defer done()
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
	// The planting's account records the removal before the head changes;
	// its room comes back only once the head names it (Confirm applies Frees).
	files, at, err := a.reserveGarden(ctx, by.AgentID, cur, cur.PlantedBy, hold)
	if err != nil {
		return domain.File{}, err
	}
	ctx, cancel := background(ctx) // the room is held: land or give it back
	defer cancel()
	// The removal tells the world in the same write as the head: the
	// count the garden will hold, dated in the order of the garden's writes.
	removed := domain.GardenRemoved{Path: path, AgentID: by.AgentID, Role: by.Role, PlantedBy: cur.PlantedBy,
		Files: files, At: at}
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
		a.settleGarden(ctx, cur.PlantedBy, hold, false)
		return domain.File{}, err
	case err != nil:
		return domain.File{}, err // the hold stays; the head settles it once it lapses
	}
	a.settleGarden(ctx, cur.PlantedBy, hold, true)
	a.dropBlob(ctx, cur.BlobID)
	return cur, nil
}
