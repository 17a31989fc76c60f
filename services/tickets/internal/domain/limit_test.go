package domain

import (
	"slices"
	"testing"
	"time"

	"sharedworld.dev/pkg/problem"
)

func TestDailyLimitSlots(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		max        int
		filedToday int
		want       []int
	}{
		{"§5 first ticket of the day may take any of the 5 slots", 5, 0, []int{1, 2, 3, 4, 5}},
		{"§5 after 3 tickets slots 4 and 5 remain", 5, 3, []int{4, 5}},
		{"§5 the fifth ticket is still allowed", 5, 4, []int{5}},
		{"§5 after 5 tickets no slot remains", 5, 5, nil},
		{"§5 a count above the limit leaves no slot", 5, 9, nil},
		{"§5 a negative count is treated as none", 5, -1, []int{1, 2, 3, 4, 5}},
		{"§5 a configured limit of 2", 2, 1, []int{2}},
		{"§5 a limit below 1 falls back to the default 5", 0, 0, []int{1, 2, 3, 4, 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NewDailyLimit(tt.max).FreeSlots(tt.filedToday); !slices.Equal(got, tt.want) {
				t.Fatalf("FreeSlots(%d) = %v, want %v", tt.filedToday, got, tt.want)
			}
		})
	}
}

func TestDay(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		at   time.Time
		want string
	}{
		{"§11 midnight starts a UTC day", time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC), "2026-11-22"},
		{"§11 the last millisecond still belongs to the day", time.Date(2026, 11, 22, 23, 59, 59, 999e6, time.UTC), "2026-11-22"},
		{"§11 days are UTC, not local: 01:00+02:00 is the previous UTC day", time.Date(2026, 11, 23, 1, 0, 0, 0, time.FixedZone("", 2*3600)), "2026-11-22"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Day(tt.at); got != tt.want {
				t.Fatalf("Day(%v) = %q, want %q", tt.at, got, tt.want)
			}
		})
	}
}

func TestExceededRetryAfter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		now  time.Time
		want time.Duration
	}{
		{"§5 429 Retry-After runs to the next UTC midnight", time.Date(2026, 11, 22, 23, 0, 0, 0, time.UTC), time.Hour},
		{"§5 a part second rounds up", time.Date(2026, 11, 22, 23, 59, 58, 1e6, time.UTC), 2 * time.Second},
		{"§5 at midnight the wait is a whole day", time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC), 24 * time.Hour},
		{"§5 the last millisecond of the day still waits one second", time.Date(2026, 11, 22, 23, 59, 59, 999e6, time.UTC), time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := NewDailyLimit(5).Exceeded(tt.now)
			wantProblem(t, err, problem.KindRateLimited, "")
			pe, _ := problem.As(err)
			if pe.RetryAfter != tt.want {
				t.Fatalf("RetryAfter = %v, want %v", pe.RetryAfter, tt.want)
			}
		})
	}
}
