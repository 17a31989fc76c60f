package ratelimit_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/pkg/ratelimit"
)

func TestWindowArithmetic(t *testing.T) {
	minute := ratelimit.Rule{Limit: 3, Window: time.Minute}
	base := time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)
	cases := []struct {
		name  string
		now   time.Time
		reset time.Time
		wait  time.Duration
	}{
		{"start of a window", base, base.Add(time.Minute), time.Minute},
		{"middle of a window", base.Add(20 * time.Second), base.Add(time.Minute), 40 * time.Second},
		{"last instant waits a whole second", base.Add(time.Minute - time.Millisecond), base.Add(time.Minute), time.Second},
		{"next window", base.Add(time.Minute), base.Add(2 * time.Minute), time.Minute},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := minute.ResetAt(c.now); !got.Equal(c.reset) {
				t.Errorf("ResetAt %v, want %v", got, c.reset)
			}
			if got := minute.RetryAfter(c.now); got != c.wait {
				t.Errorf("RetryAfter %v, want %v", got, c.wait)
			}
		})
	}
	if minute.WindowOf(base) == minute.WindowOf(base.Add(time.Minute)) || minute.WindowOf(base) != minute.WindowOf(base.Add(59*time.Second)) {
		t.Fatal("a window is one minute long")
	}
}

func TestParseOverridesDefaults(t *testing.T) {
	rules, err := ratelimit.Parse(map[string]string{ratelimit.Writes: "1000/1m", ratelimit.RegisterSource: " 5/1h "})
	if err != nil {
		t.Fatal(err)
	}
	if r := rules[ratelimit.Writes]; r.Limit != 1000 || r.Window != time.Minute {
		t.Fatalf("writes: %+v", r)
	}
	if r := rules[ratelimit.RegisterSource]; r.Limit != 5 || r.Window != time.Hour {
		t.Fatalf("register_source: %+v", r)
	}
	if rules[ratelimit.GardenPlantings] != ratelimit.Defaults()[ratelimit.GardenPlantings] {
		t.Fatal("a rule not named keeps its default")
	}
	for _, bad := range []map[string]string{
		{"nonsense": "1/1m"}, {ratelimit.Writes: "0/1m"}, {ratelimit.Writes: "10"},
		{ratelimit.Writes: "10/1ms"}, {ratelimit.Writes: "x/1m"}, {ratelimit.Writes: "10/soon"},
	} {
		if _, err := ratelimit.Parse(bad); err == nil {
			t.Errorf("%v must be refused", bad)
		}
	}
}

func TestLimiterRefusesOverTheBudgetAndCountsNoRefusal(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 15, 0, time.UTC)
	rules := map[string]ratelimit.Rule{"r": {Name: "r", Limit: 3, Window: time.Minute, What: "writes", Per: "citizen"}}
	l := ratelimit.New(rules, ratelimit.NewMemory(), func() time.Time { return now })
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if _, err := l.Allow(ctx, "r", "ada"); err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
	}
	for i := 0; i < 5; i++ {
		_, err := l.Allow(ctx, "r", "ada")
		pe, ok := problem.As(err)
		if !ok || pe.Kind != problem.KindRateLimited {
			t.Fatalf("request over the budget: %v", err)
		}
		if pe.RetryAfter != 45*time.Second || !strings.Contains(pe.Hint, "Wait 45 s") || !strings.Contains(pe.Message, "at most 3 per minute per citizen") {
			t.Fatalf("refusal must give the wait: %+v", pe)
		}
	}
	if _, err := l.Allow(ctx, "r", "bob"); err != nil {
		t.Fatalf("another key has its own budget: %v", err)
	}
	// The next window: the refusals above took nothing from it either way,
	// and the budget is whole again.
	now = now.Add(time.Minute)
	for i := 0; i < 3; i++ {
		if _, err := l.Allow(ctx, "r", "ada"); err != nil {
			t.Fatalf("next window, request %d: %v", i+1, err)
		}
	}
	if _, err := l.Allow(ctx, "r", "ada"); err == nil {
		t.Fatal("the fourth request of the next window must be refused")
	}
	var nilLimiter *ratelimit.Limiter
	if _, err := nilLimiter.Allow(ctx, "r", "ada"); err != nil {
		t.Fatal("a nil limiter allows everything")
	}
}
