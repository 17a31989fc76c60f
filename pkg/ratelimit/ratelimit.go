// Package ratelimit is the kit's one rate limiter: named rules (at most so
// many in any window of a length), the Retry-After of a refusal, and a
// Counter that keeps the counted requests (a sliding log: in memory in a
// test, in the database in a world, so replicas share it and a restart
// forgets nothing; see ratelimit/slots). A sliding log rather than fixed
// windows because a fixed window lets a client send twice its budget across
// a window's edge. It knows nothing of HTTP or storage: pkg/auth and
// pkg/admit put it in front of routes.
package ratelimit

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"sharedworld.dev/pkg/problem"
)

// The rules the kit enforces. Each limits one key (an agent id, a source
// address) to Limit requests in any Window; a refused request is not counted.
const (
	// Writes is every authenticated POST, PUT, PATCH or DELETE, per agent.
	Writes = "writes"
	// RegisterAgent is POST /api/world/register per provider identity (agent_id).
	RegisterAgent = "register_agent"
	// RegisterSource is POST /api/world/register per source address.
	RegisterSource = "register_source"
	// StorageWrites is storage writes and deletes, per citizen.
	StorageWrites = "storage_writes"
	// GardenPlantings is writes to the commons garden, per citizen.
	GardenPlantings = "garden_plantings"
)

// Rule is at most Limit requests in any Window-long stretch of time, for
// one key.
type Rule struct {
	Name   string
	Limit  int
	Window time.Duration
	// What names one counted request in messages ("writes", "registrations").
	What string
	// Per names the key in messages ("citizen", "source address").
	Per string
}

// Defaults are the limits of a world nobody configured: generous for an
// agent at work, tight for a script repeating a cheap write.
func Defaults() map[string]Rule {
	return map[string]Rule{
		Writes:          {Name: Writes, Limit: 300, Window: time.Minute, What: "authenticated writes", Per: "agent"},
		RegisterAgent:   {Name: RegisterAgent, Limit: 10, Window: time.Hour, What: "registrations", Per: "agent_id"},
		RegisterSource:  {Name: RegisterSource, Limit: 100, Window: time.Hour, What: "registrations", Per: "source address"},
		StorageWrites:   {Name: StorageWrites, Limit: 120, Window: time.Minute, What: "storage writes and deletes", Per: "citizen"},
		GardenPlantings: {Name: GardenPlantings, Limit: 30, Window: time.Minute, What: "garden writes", Per: "citizen"},
	}
}

// Names lists the rules in a stable order.
func Names() []string {
	d := Defaults()
	names := make([]string, 0, len(d))
	for n := range d {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// DocName is the rule's name in the documents' limit tables, with its
// window: writes_per_minute.
func (r Rule) DocName() string { return r.Name + "_per_" + every(r.Window) }

// String is the rule as configured: limit/window.
func (r Rule) String() string { return strconv.Itoa(r.Limit) + "/" + r.Window.String() }

// Refusal is the 429 of a refused request: the wait (until the oldest
// counted request leaves the window, never less than a second, as
// Retry-After is whole seconds) in Retry-After and in the hint.
func (r Rule) Refusal(wait time.Duration) error {
	wait = max(wait, time.Second)
	secs := int(wait.Seconds() + 0.999) // as httpx writes Retry-After
	return problem.RateLimited(
		fmt.Sprintf("Too many %s: at most %d per %s per %s.", r.What, r.Limit, every(r.Window), r.Per),
		fmt.Sprintf("Wait %d s (Retry-After) and try again; requests this limit refuses are not counted.", secs),
		wait)
}

func every(d time.Duration) string {
	switch d {
	case time.Second:
		return "second"
	case time.Minute:
		return "minute"
	case time.Hour:
		return "hour"
	case 24 * time.Hour:
		return "day"
	}
	return d.String()
}

// Parse overrides defaults with "name=limit/window" settings
// (WORLD_RATE_LIMITS, for example writes=1000/1m).
func Parse(settings map[string]string) (map[string]Rule, error) {
	rules := Defaults()
	for name, v := range settings {
		r, ok := rules[name]
		if !ok {
			return nil, fmt.Errorf("unknown rate limit %q (known: %s)", name, strings.Join(Names(), ", "))
		}
		n, w, ok := strings.Cut(strings.TrimSpace(v), "/")
		limit, err := strconv.Atoi(n)
		window, werr := time.ParseDuration(w)
		if !ok || err != nil || werr != nil || limit < 1 || window < time.Second {
			return nil, fmt.Errorf("rate limit %s=%q: want <limit>/<window>, limit ≥ 1 and window ≥ 1s (for example 120/1m)", name, v)
		}
		r.Limit, r.Window = limit, window
		rules[name] = r
	}
	return rules, nil
}

// Counter keeps, per key, the requests counted in the last window.
type Counter interface {
	// Take counts one request of key at now if fewer than limit were
	// counted in the window (now-window, now], and returns the slot it
	// counted it in. When limit were, it counts nothing and returns ""
	// and wait: how long until the oldest of them leaves the window.
	Take(ctx context.Context, key string, now time.Time, limit int, window time.Duration) (slot string, wait time.Duration, err error)
	// Give uncounts a slot Take counted: the request was refused after
	// all, and a refusal never counts toward a limit.
	Give(ctx context.Context, key, slot string) error
}

// Taken is one counted request, to give back if the request is refused
// after it was counted (a 4xx of the handler behind the limit). The zero
// Taken (nothing counted) gives back nothing.
type Taken struct {
	counter Counter
	key     string
	slot    string
}

// Give uncounts the request. A failure only leaves the request counted.
func (t Taken) Give(ctx context.Context) {
	if t.slot != "" {
		_ = t.counter.Give(ctx, t.key, t.slot)
	}
}

// Limiter applies rules over a counter.
type Limiter struct {
	rules   map[string]Rule
	counter Counter
	now     func() time.Time
}

// New returns a limiter; now is the wall clock unless set (tests).
func New(rules map[string]Rule, counter Counter, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	return &Limiter{rules: rules, counter: counter, now: now}
}

// Rule returns a rule by name.
func (l *Limiter) Rule(name string) (Rule, bool) {
	r, ok := l.rules[name]
	return r, ok
}

// Allow counts one request of key under the named rule, or returns the
// 429 problem when the key spent its budget in the last window. The caller
// gives the count back (Taken.Give) when the request is refused after all.
// A nil limiter allows everything (a job's host serves no request).
func (l *Limiter) Allow(ctx context.Context, rule, key string) (Taken, error) {
	if l == nil {
		return Taken{}, nil
	}
	r, ok := l.rules[rule]
	if !ok {
		return Taken{}, fmt.Errorf("ratelimit: no rule %q", rule)
	}
	k := rule + "|" + key
	slot, wait, err := l.counter.Take(ctx, k, l.now(), r.Limit, r.Window)
	if err != nil {
		return Taken{}, problem.Unavailable("The rate limit could not be checked.", "Retry in a few seconds; nothing was done.")
	}
	if slot == "" {
		return Taken{}, r.Refusal(wait)
	}
	return Taken{counter: l.counter, key: k, slot: slot}, nil
}
