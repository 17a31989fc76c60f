package store

import (
	"context"
	"time"

	"sharedworld.dev/services/plots-storage/internal/domain"
)

// The garden's tally (app/tally.go: its file count with the date of its
// last move) is kept here on a shared database as one small usage
// document, which every replica moves; MirroredUsage keeps it in memory.

// GardenTallyAccount is the usage document of the tally on a shared
// database; it names no tenancy and no share.
const GardenTallyAccount = "garden_tally"

// MoveTally adds files to the garden's count and dates the move after
// every earlier one; it returns the count and the date.
func (s *Usage) MoveTally(ctx context.Context, files int64, now time.Time) (int64, time.Time, error) {
	var at time.Time
	acc, err := s.Account(ctx, GardenTallyAccount, func(acc *domain.Account) error {
		acc.Files += files
		at = acc.Stamp(now)
		return nil
	})
	return acc.Files, at, err
}

// StartTally sets the tally to count's files, dated now, only when it has
// none yet: replicas keep it from then on.
func (s *Usage) StartTally(ctx context.Context, now time.Time, count func(context.Context) (int64, time.Time, error)) error {
	tally, err := s.Read(ctx, GardenTallyAccount)
	if err != nil || !tally.Stamped.IsZero() {
		return err
	}
	files, _, err := count(ctx)
	if err != nil {
		return err
	}
	_, err = s.Account(ctx, GardenTallyAccount, func(acc *domain.Account) error {
		if acc.Stamped.IsZero() { // no replica counted it first
			acc.Files = files
			acc.Stamp(now)
		}
		return nil
	})
	return err
}
