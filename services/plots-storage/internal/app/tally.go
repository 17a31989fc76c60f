package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"sharedworld.dev/services/plots-storage/internal/domain"
)

// The garden's events carry the garden's file count and are dated in the
// order that count moved (domain.Account.Stamp): the bulletin keeps the
// count of the latest. Room is no longer taken on one garden account per
// write (grant.go), so the count is kept apart, as a tally: one number and
// a date, moved once by each garden write's hold and back by a hold given
// back. The usage store keeps it: where this process is the database's
// only writer in memory, counted from the garden's files at start (after
// every hold is settled, so nothing is in flight); on a shared database as
// one small document.

// moveTally adds files to the garden's count and dates the move after
// every earlier one; it returns the count and the date.
func (a *App) moveTally(ctx context.Context, files int64) (int64, time.Time, error) {
	return a.Usage.MoveTally(ctx, files, a.Clock.Now())
}

// unmoveTally takes back the move of a hold given back.
func (a *App) unmoveTally(ctx context.Context, h domain.Hold) {
	n := h.Change.Files + h.Frees.Files
	if h.PlotID != domain.CommonsPlotID || n == 0 {
		return
	}
	bg, cancel := background(ctx)
	defer cancel()
	if _, _, err := a.moveTally(bg, -n); err != nil {
		a.Log.Warn("could not take a garden write back from the garden's count", slog.String("hold", h.ID), slog.String("error", err.Error()))
	}
}

// countGarden sets the tally, where the store needs it counted, to the
// garden's files as stored, once its holds are settled.
func (a *App) countGarden(ctx context.Context) error {
	return a.Usage.StartTally(ctx, a.Clock.Now(), func(ctx context.Context) (int64, time.Time, error) {
		files, err := a.Files.List(ctx, domain.CommonsPlotID, domain.CommonsTenancy, domain.GardenPrefix)
		if err != nil {
			return 0, time.Time{}, fmt.Errorf("count the garden: %w", err)
		}
		// Dates go on after the latest the garden recorded: its heads',
		// and the garden account's of the writes it dated before the tally.
		garden, err := a.Usage.Read(ctx, domain.CommonsTenancy)
		if err != nil {
			return 0, time.Time{}, err
		}
		latest := garden.Stamped
		for _, f := range files {
			if f.WrittenAt.After(latest) {
				latest = f.WrittenAt
			}
		}
		return int64(len(files)), latest, nil
	})
}
