package attack

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"sharedworld.dev/pkg/ratelimit"
)

// Budgets are the rate limits the attacked world runs with
// (WORLD_RATE_LIMITS syntax: name=limit/window).
type Budgets map[string]ratelimit.Rule

// ParseBudgets reads WORLD_RATE_LIMITS-style settings over the defaults.
func ParseBudgets(settings string) (Budgets, error) {
	m := map[string]string{}
	for _, kv := range strings.Split(settings, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	rules, err := ratelimit.Parse(m)
	return Budgets(rules), err
}

var waitInHint = regexp.MustCompile(`Wait (\d+) s`)

// limited checks a refusal by a rate limit: 429 rate_limited, Retry-After
// whole seconds within the window, and the same wait in the hint.
func limited(cat *Category, r Reply, why string, rule ratelimit.Rule) int {
	if !cat.Refused(r, why, http.StatusTooManyRequests, "rate_limited") {
		return 0
	}
	secs, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || secs < 1 || time.Duration(secs)*time.Second > rule.Window+time.Second {
		cat.Flag(r, "%s: Retry-After %q is not a wait within the %s window", why, r.Header.Get("Retry-After"), rule.Window)
		return 0
	}
	m := waitInHint.FindStringSubmatch(r.Str("hint"))
	if m == nil || m[1] != strconv.Itoa(secs) {
		cat.Flag(r, "%s: the hint's wait does not match Retry-After %d s", why, secs)
	}
	return secs
}

// RateLimits checks the rate limits on one world or spread over two replicas
// (every request alternates between them): each budget admits exactly its
// limit per window, then 429 with Retry-After and the wait in the hint;
// refused requests are not counted, so after the wait the whole budget is
// back. ws are the world's processes (replicas of one world).
func RateLimits(b Budgets, ws ...*World) *Category {
	cat := &Category{Name: "rate limits"}
	pick := func(i int) *World { return ws[i%len(ws)] }

	// writes, per agent across the replicas: the registration is one.
	wr := b[ratelimit.Writes]
	if wr.Limit > 400 {
		cat.Note("writes budget %d too large to spend; not tried", wr.Limit)
	} else if ada, err := pick(0).NewCitizen(cat, "Writer"); err == nil {
		start := time.Now()
		ok := 1
		var refusal Reply
		for i := 0; i < wr.Limit+5; i++ {
			r := pick(i).JSON(cat, "PUT", "/api/world/profile", map[string]any{"bio": fmt.Sprint("w", i)}, ada.Headers())
			if r.Status == 200 {
				ok++
			} else if refusal.Status == 0 {
				refusal = r
			}
		}
		if time.Since(start) < wr.Window && ok != wr.Limit {
			cat.Flag(refusal, "%d writes of one agent accepted across %d processes, the budget is %d", ok, len(ws), wr.Limit)
		}
		limited(cat, refusal, "a write beyond the writes budget", wr)
	}

	// garden plantings: spend, be refused a few times; after the wait the
	// refusal gave, one more is accepted; a window after the last one the
	// whole budget is back.
	gp := b[ratelimit.GardenPlantings]
	if gp.Window > 5*time.Second || gp.Limit > 50 {
		cat.Note("garden_plantings budget %s too large or its window too long to spend twice; not tried", gp)
	} else if g, err := pick(1).NewCitizen(cat, "Planter"); err == nil {
		folder := "/garden/" + strings.ToLower(g.Name) + "/"
		for round := 0; round < 2; round++ {
			for i := 0; i < gp.Limit; i++ {
				r := pick(i).JSON(cat, "POST", "/api/world/storage/write", map[string]any{"plot_id": commons, "path": fmt.Sprintf("%sr%d-%d.md", folder, round, i), "content": "eA=="}, g.Headers())
				cat.Want(r, fmt.Sprintf("planting %d of a budget of %d (round %d)", i+1, gp.Limit, round+1), 201)
			}
			wait := 0
			for i := 0; i < 5; i++ {
				r := pick(i).JSON(cat, "POST", "/api/world/storage/write", map[string]any{"plot_id": commons, "path": folder + "over.md", "content": "eA=="}, g.Headers())
				wait = max(wait, limited(cat, r, "a planting beyond the budget", gp))
			}
			time.Sleep(time.Duration(wait) * time.Second)
			r := pick(round).JSON(cat, "POST", "/api/world/storage/write", map[string]any{"plot_id": commons, "path": fmt.Sprintf("%safter-wait-%d.md", folder, round), "content": "eA=="}, g.Headers())
			cat.Want(r, "a planting after the Retry-After of a refusal", 201)
			if round == 0 {
				time.Sleep(gp.Window) // every planting of this round leaves the window
			}
		}
	}

	// registration per provider identity: 201, then 409s; a refusal never
	// counts toward a limit, so the budget stays unspent and the next is a
	// 409 again, not a 429.
	ra := b[ratelimit.RegisterAgent]
	if ra.Limit > 20 {
		cat.Note("register_agent budget %d too large to spend; not tried", ra.Limit)
	} else if a, err := pick(0).NewAgent(cat, "Rereg"+Nonce()[:6]); err == nil {
		h := a.Headers()
		h.Set("X-Forwarded-For", "192.0.2.1") // out of the way of register_source
		for i := 0; i < ra.Limit; i++ {
			r := pick(i).JSON(cat, "POST", "/api/world/register", map[string]any{"name": a.Name}, h)
			if i == 0 {
				cat.Want(r, "the first registration", 201)
			} else {
				cat.Refused(r, "registering again", 409, "")
			}
		}
		r := pick(ra.Limit).JSON(cat, "POST", "/api/world/register", map[string]any{"name": a.Name}, h)
		cat.Refused(r, "registering again once the refusals reached the budget (they do not count)", 409, "")
	}
	registerSource(cat, b, pick)
	return cat
}

// registerSource: registrations from one source address (named by the
// proxy header the replicas trust) stop at the budget; another source
// still registers.
func registerSource(cat *Category, b Budgets, pick func(int) *World) {
	rs := b[ratelimit.RegisterSource]
	if rs.Limit > 20 {
		cat.Note("register_source budget %d too large to spend; not tried", rs.Limit)
		return
	}
	source := fmt.Sprintf("198.51.100.%d", 1+time.Now().UnixNano()%250)
	for i := 0; i <= rs.Limit; i++ {
		a, err := pick(i).NewAgent(cat, "Src"+Nonce()[:6])
		if err != nil {
			return
		}
		h := a.Headers()
		h.Set("X-Forwarded-For", source)
		r := pick(i).JSON(cat, "POST", "/api/world/register", map[string]any{"name": a.Name}, h)
		if i < rs.Limit {
			cat.Want(r, fmt.Sprintf("registration %d of a source's budget of %d", i+1, rs.Limit), 201)
		} else {
			limited(cat, r, "a registration beyond the source's budget", rs)
		}
	}
}
