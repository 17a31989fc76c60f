package domain

import (
	"errors"
	"fmt"
	"time"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/problem"
)

// DefaultDailyLimit is how many tickets one citizen may file per UTC day of
// the world's clock (CONTRACT §5).
const DefaultDailyLimit = 5

// DailyLimit caps the tickets a citizen files per UTC day. Each of a
// citizen's tickets of one day takes a numbered slot 1..limit, and the store
// keeps (citizen, day, slot) unique: a filing that finds every slot taken is
// over the limit. Because the slot is part of the ticket's own write, the
// limit holds under concurrent requests, and a rejected request takes no slot.
type DailyLimit struct{ max int }

// NewDailyLimit returns a limit of max tickets per day; max below 1 means
// the default, since a world that forbids all tickets would be a mistake.
func NewDailyLimit(max int) DailyLimit {
	if max < 1 {
		max = DefaultDailyLimit
	}
	return DailyLimit{max: max}
}

// Max returns the number of tickets allowed per day.
func (l DailyLimit) Max() int { return l.max }

// Day names the UTC day of t, the unit the limit counts in.
func Day(t time.Time) string { return clock.UTCDay(t).Format(time.DateOnly) }

// FreeSlots returns the slots a filing may try, given how many tickets the
// citizen has filed today; none when the limit is reached. The count is only
// a starting point: a concurrent filing may take a slot first, so the store
// tries the next one on a duplicate key.
func (l DailyLimit) FreeSlots(filedToday int) []int {
	var slots []int
	for n := max(filedToday, 0) + 1; n <= l.max; n++ {
		slots = append(slots, n)
	}
	return slots
}

// Exceeded is the 429 answer once every slot of the day is taken, with
// Retry-After pointing at the next UTC midnight of the world's clock.
func (l DailyLimit) Exceeded(now time.Time) error {
	return problem.RateLimited(fmt.Sprintf("You have filed %d tickets today, the daily limit.", l.max),
		"Wait until the next UTC day (see Retry-After), or upvote an existing ticket that describes the same problem.",
		UntilNextDay(now))
}

// UntilNextDay is the time from now to the next UTC midnight, rounded up to
// whole seconds (Retry-After carries seconds) and never zero.
func UntilNextDay(now time.Time) time.Duration {
	next := clock.UTCDay(now).Add(24 * time.Hour)
	d := next.Sub(now.UTC())
	if r := d % time.Second; r != 0 {
		d += time.Second - r
	}
	return max(d, time.Second)
}

// ErrSlotsTaken is the store's answer when every slot of the day is taken.
var ErrSlotsTaken = errors.New("every daily ticket slot is taken")
