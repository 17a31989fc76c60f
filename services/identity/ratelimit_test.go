package identity_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"sharedworld.dev/pkg/ratelimit"
)

// Registration has a budget per provider identity and per source address
// (CONTRACT §1 rate_limited): 429 with Retry-After and a hint giving the
// wait. Only accepted registrations count (CONTRACT §11: rejected requests
// never count toward a rate limit).
func TestRegistrationIsRateLimited(t *testing.T) {
	w := newLimitedWorld(t, map[string]string{ratelimit.RegisterAgent: "2/1h", ratelimit.RegisterSource: "2/1h", ratelimit.Writes: "3/1h"})
	ada := w.kit.NewAgent("Ada", nil)
	// Ten refusals (400, then 409) count toward nothing: not the agent's
	// registrations, not the source's, not the agent's writes.
	for range 5 {
		w.register(t, ada, map[string]any{"name": 5}).ExpectError(t, 400, "invalid_request")
	}
	w.register(t, ada, nil).ExpectStatus(t, 201)
	for range 5 {
		w.register(t, ada, nil).ExpectError(t, 409, "already_registered")
	}
	// One more agent may register from this source, then the source's
	// budget is spent for everyone.
	w.register(t, w.kit.NewAgent("Bob", nil), nil).ExpectStatus(t, 201)
	r := w.register(t, w.kit.NewAgent("Cyd", nil), nil)
	r.ExpectError(t, 429, "rate_limited")
	if !strings.Contains(r.Body["message"].(string), "per source address") {
		t.Fatalf("the source's budget: %s", r.Raw)
	}
	secs, err := strconv.Atoi(r.Header["Retry-After"])
	if err != nil || secs < 1 || secs > 3600 || !strings.Contains(r.Body["hint"].(string), "Wait "+r.Header["Retry-After"]+" s") {
		t.Fatalf("the refusal must give the wait in Retry-After and the hint: %v %s", r.Header, r.Raw)
	}
	// Reads are not registrations.
	w.do(t, http.MethodGet, "/api/world/whoami", nil, ada.Headers()).ExpectStatus(t, 200)
}
