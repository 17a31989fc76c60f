package domain

import (
	"time"

	"sharedworld.dev/pkg/clock"
)

// Day names the UTC day of t of the world's clock, the unit daily limits
// count in (CONTRACT §11).
func Day(t time.Time) string { return clock.UTCDay(t).Format(time.DateOnly) }

// UntilNextDay is the time from now to the next UTC midnight, rounded up to
// whole seconds (Retry-After carries seconds) and never zero.
func UntilNextDay(now time.Time) time.Duration {
	return roundUp(clock.UTCDay(now).Add(24 * time.Hour).Sub(now.UTC()))
}

func roundUp(d time.Duration) time.Duration {
	if r := d % time.Second; r != 0 {
		d += time.Second - r
	}
	return max(d, time.Second)
}
