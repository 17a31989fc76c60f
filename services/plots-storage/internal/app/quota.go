package app

import (
	"context"
	"log/slog"

	"sharedworld.dev/services/plots-storage/internal/domain"
)

// reserve takes the room change needs from the tenancy's quota and returns
// the usage after it (413 with the reason when the quota refuses).
func (a *App) reserve(ctx context.Context, tenancy string, change domain.Change) (domain.Usage, error) {
	return a.Usage.Change(ctx, tenancy, func(u *domain.Usage) error { return u.Take(change) })
}

// release gives a reservation back.
func (a *App) release(ctx context.Context, plotID, tenancy string, change domain.Change) {
	a.account(ctx, plotID, tenancy, change.Negate())
}

// account applies a change that needs no room (space given back). A
// failure leaves the usage overstated, never understated, so the quota
// stays safe.
func (a *App) account(ctx context.Context, plotID, tenancy string, change domain.Change) {
	if change == (domain.Change{}) {
		return
	}
	bg, cancel := background(ctx)
	defer cancel()
	if _, err := a.Usage.Change(bg, tenancy, func(u *domain.Usage) error { u.Apply(change); return nil }); err != nil {
		a.Log.Error("could not give quota back; the plot's usage overstates by it",
			slog.String("plot_id", plotID), slog.Int64("bytes", -change.Bytes), slog.Int64("files", -change.Files),
			slog.String("error", err.Error()))
	}
}
