package ratelimit_test

import (
	"context"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/pkg/ratelimit"
)

// The edge: under 30 per minute, 30 plantings at the end of one
// minute and 30 at the start of the next were all accepted by fixed
// windows; a sliding window refuses the second 30 until the first leave.
func TestAtMostTheLimitInAnyWindow(t *testing.T) {
	base := time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)
	cases := []struct {
		name     string
		accepted []time.Duration // after base
		at       time.Duration
		ok       bool
		wait     time.Duration
	}{
		{"empty", nil, 0, true, 0},
		{"below the limit", []time.Duration{0, time.Second}, 2 * time.Second, true, 0},
		{"full: waits for the oldest", []time.Duration{0, 10 * time.Second, 20 * time.Second}, 30 * time.Second, false, 30 * time.Second},
		{"across a minute's edge", []time.Duration{50 * time.Second, 55 * time.Second, 59 * time.Second}, 61 * time.Second, false, 49 * time.Second},
		{"the oldest just left", []time.Duration{0, 10 * time.Second, 20 * time.Second}, time.Minute + time.Nanosecond, true, 0},
		{"the oldest at the window's very start", []time.Duration{0, 10 * time.Second, 20 * time.Second}, time.Minute, true, 0},
		{"one instant before it leaves", []time.Duration{0, 10 * time.Second, 20 * time.Second}, time.Minute - time.Nanosecond, false, time.Nanosecond},
		{"more than the limit (it was lowered): waits until two left", []time.Duration{0, 10 * time.Second, 20 * time.Second, 30 * time.Second}, 40 * time.Second, false, 30 * time.Second},
		{"many old, full recent", []time.Duration{0, 1, 2, 3, 70 * time.Second, 71 * time.Second, 72 * time.Second}, 73 * time.Second, false, 57 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			log := ratelimit.NewLog()
			for i, a := range c.accepted {
				log.Add("k", strconv.Itoa(i), base.Add(a), base.Add(a+time.Minute))
			}
			ok, wait := log.Reserve("k", "new", base.Add(c.at), 3, time.Minute)
			if ok != c.ok || wait != c.wait {
				t.Fatalf("Reserve = %v, %v; want %v, %v", ok, wait, c.ok, c.wait)
			}
		})
	}
}

// Random arrivals against the brute-force definition: an accepted request
// never makes a window hold more than the limit, a refused one found the
// window full, and its wait is exactly when the next would be accepted.
func TestSlidingLogAgreesWithBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 200; round++ {
		limit, window := 1+rng.IntN(5), time.Duration(1+rng.IntN(10))*time.Second
		log := ratelimit.NewLog()
		var accepted []time.Time
		now := time.Unix(1_700_000_000, 0)
		inWindow := func(at time.Time) int {
			n := 0
			for _, a := range accepted {
				if a.After(at.Add(-window)) && !a.After(at) {
					n++
				}
			}
			return n
		}
		for i := 0; i < 60; i++ {
			now = now.Add(time.Duration(rng.Int64N(int64(window) / 2)))
			slot := strconv.Itoa(i)
			ok, wait := log.Reserve("k", slot, now, limit, window)
			if n := inWindow(now); ok != (n < limit) {
				t.Fatalf("round %d: %d in the window of %v, limit %d, Reserve said %v", round, n, now, limit, ok)
			}
			if ok {
				accepted = append(accepted, now)
				if rng.IntN(8) == 0 { // refused by the handler after all
					log.Remove("k", slot)
					accepted = accepted[:len(accepted)-1]
				}
				continue
			}
			if inWindow(now.Add(wait)) >= limit || inWindow(now.Add(wait-time.Nanosecond)) < limit {
				t.Fatalf("round %d: wait %v is not when the window first has room", round, wait)
			}
		}
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
	now = now.Add(15 * time.Second) // the three leave the window in 45 s
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
	// A minute after the three, the refusals above took nothing either
	// way, and the budget is whole again.
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
