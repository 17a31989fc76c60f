package app

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"sharedworld.dev/services/plots-storage/internal/domain"
)

// The garden's events carry the garden's file count and are dated in the
// order that count moved (domain.Account.Stamp): the bulletin keeps the
// count of the latest. Room is no longer taken on one garden account per
// write (grant.go), so the count is kept apart, as a tally: one number and
// a date, moved once by each garden write's hold and back by a hold given
// back. On the exclusive backend it lives in memory, counted from the
// garden's files at start (after every hold is settled, so nothing is in
// flight); on a shared database it is one small document.

// GardenTallyAccount is the usage document of the tally on a shared
// database; it names no tenancy and no share.
const GardenTallyAccount = "garden_tally"

// gardenTally is the garden's file count with the date of its last move.
type gardenTally struct {
	mu  sync.Mutex
	mem *domain.Account // the exclusive backend's; nil on a shared database
}

// moveTally adds files to the garden's count and dates the move after
// every earlier one; it returns the count and the date.
func (a *App) moveTally(ctx context.Context, files int64) (int64, time.Time, error) {
	now := a.Clock.Now()
	if a.SoleWriter {
		a.tally.mu.Lock()
		defer a.tally.mu.Unlock()
		if a.tally.mem == nil {
			a.tally.mem = &domain.Account{}
		}
		a.tally.mem.Files += files
		return a.tally.mem.Files, a.tally.mem.Stamp(now), nil
	}
	var at time.Time
	acc, err := a.Usage.Account(ctx, GardenTallyAccount, func(acc *domain.Account) error {
		acc.Files += files
		at = acc.Stamp(now)
		return nil
	})
	return acc.Files, at, err
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

// countGarden sets the tally to the garden's files as stored, dated no
// earlier than before: at the start of the database's only writer, once
// its holds are settled; on a shared database only when it has none yet.
func (a *App) countGarden(ctx context.Context) error {
	count := func() ([]domain.File, error) {
		files, err := a.Files.List(ctx, domain.CommonsPlotID, domain.CommonsTenancy, domain.GardenPrefix)
		if err != nil {
			return nil, fmt.Errorf("count the garden: %w", err)
		}
		return files, nil
	}
	if !a.SoleWriter {
		tally, err := a.Usage.Read(ctx, GardenTallyAccount)
		if err != nil || !tally.Stamped.IsZero() {
			return err
		}
		files, err := count()
		if err != nil {
			return err
		}
		_, err = a.Usage.Account(ctx, GardenTallyAccount, func(acc *domain.Account) error {
			if acc.Stamped.IsZero() { // no replica counted it first
				acc.Files = int64(len(files))
				acc.Stamp(a.Clock.Now())
			}
			return nil
		})
		return err
	}
	files, err := count()
	if err != nil {
		return err
	}
	// Dates go on after the latest the garden recorded: its heads', and
	// the garden account's of the writes it dated before the tally.
	garden, err := a.Usage.Read(ctx, domain.CommonsTenancy)
	if err != nil {
		return err
	}
	stamped := garden.Stamped
	for _, f := range files {
		if f.WrittenAt.After(stamped) {
			stamped = f.WrittenAt
		}
	}
	a.tally.mu.Lock()
	defer a.tally.mu.Unlock()
	a.tally.mem = &domain.Account{Usage: domain.Usage{Files: int64(len(files))}, Stamped: stamped}
	return nil
}
