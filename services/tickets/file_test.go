package tickets_test

import (
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"sharedworld.dev/pkg/testkit"
)

var ticketIDShape = regexp.MustCompile(`^tkt_[0-9a-f]{8}$`)

func TestFileTicket(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	r := w.do(t, http.MethodPost, "/api/world/tickets", map[string]any{
		"category": "bug", "title": "Feed skips items", "description": "Steps:\n1. open the feed\n2. scroll",
	}, ada.Headers())
	r.ExpectStatus(t, 201)
	if r.Body["ok"] != true {
		t.Fatalf("§1 success body without ok: %s", r.Raw)
	}
	tk := r.Body["ticket"].(map[string]any)
	want := map[string]any{
		"category": "bug", "title": "Feed skips items", "description": "Steps:\n1. open the feed\n2. scroll",
		"severity": "normal", "status": "open", "upvotes": float64(0), "filed_by": ada.ID,
		"created_at": "2026-11-22T09:00:00.000Z", "updated_at": "2026-11-22T09:00:00.000Z",
	}
	for k, v := range want {
		if tk[k] != v {
			t.Fatalf("§5 ticket.%s = %v, want %v: %s", k, tk[k], v, r.Raw)
		}
	}
	if !ticketIDShape.MatchString(tk["ticket_id"].(string)) {
		t.Fatalf("§1 ticket_id %v is not tkt_ + 8 hex", tk["ticket_id"])
	}
	if _, has := tk["response"]; has {
		t.Fatalf("§5 a new ticket has no response: %s", r.Raw)
	}

	got := w.do(t, http.MethodGet, "/api/world/tickets/"+tk["ticket_id"].(string), nil, nil)
	got.ExpectStatus(t, 200)
	for k, v := range tk {
		if got.Body["ticket"].(map[string]any)[k] != v {
			t.Fatalf("§5 GET returns %s = %v, POST said %v", k, got.Body["ticket"].(map[string]any)[k], v)
		}
	}
}

func TestFileSeverityAndLengthBounds(t *testing.T) {
	w := newWorld(t)
	cases := []struct {
		name string
		body map[string]any
		want map[string]any
	}{
		{"§5 explicit severity", map[string]any{"category": "feature", "title": "t", "description": "d", "severity": "critical"}, map[string]any{"severity": "critical"}},
		{"§5 null severity means the default", map[string]any{"category": "docs", "title": "t", "description": "d", "severity": nil}, map[string]any{"severity": "normal"}},
		{"§5 title of exactly 200 characters", map[string]any{"category": "bug", "title": strings.Repeat("é", 200), "description": "d"}, map[string]any{"title": strings.Repeat("é", 200)}},
		{"§5 description of exactly 3000 characters (4-byte runes)", map[string]any{"category": "bug", "title": "t", "description": strings.Repeat("🐛", 3000)}, map[string]any{"description": strings.Repeat("🐛", 3000)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := w.do(t, http.MethodPost, "/api/world/tickets", c.body, w.citizen("S").Headers())
			r.ExpectStatus(t, 201)
			for k, v := range c.want {
				if r.Body["ticket"].(map[string]any)[k] != v {
					t.Fatalf("ticket.%s = %v, want %v", k, r.Body["ticket"].(map[string]any)[k], v)
				}
			}
		})
	}
}

func TestFileRejections(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	valid := func(change func(map[string]any)) map[string]any {
		b := map[string]any{"category": "bug", "title": "A title", "description": "A description"}
		change(b)
		return b
	}
	operator := map[string]any{"$ne": nil}
	cases := []struct {
		name   string
		body   any
		status int
		code   string
	}{
		{"§1 malformed JSON", `{"category": "bug",`, 400, "invalid_request"},
		{"§1 body is not an object", `["bug"]`, 400, "invalid_request"},
		{"§11 empty body: every field missing", nil, 400, "invalid_request"},
		{"§11 missing category", valid(func(b map[string]any) { delete(b, "category") }), 400, "invalid_request"},
		{"§1 unknown category", valid(func(b map[string]any) { b["category"] = "praise" }), 400, "invalid_request"},
		{"§1 category of the wrong type", valid(func(b map[string]any) { b["category"] = 3 }), 400, "invalid_request"},
		{"§1 category as a query operator", valid(func(b map[string]any) { b["category"] = operator }), 400, "invalid_request"},
		{"§11 missing title", valid(func(b map[string]any) { delete(b, "title") }), 400, "invalid_request"},
		{"§11 empty title", valid(func(b map[string]any) { b["title"] = "" }), 400, "invalid_request"},
		{"§11 null title", valid(func(b map[string]any) { b["title"] = nil }), 400, "invalid_request"},
		{"§1 title as a query operator", valid(func(b map[string]any) { b["title"] = operator }), 400, "invalid_request"},
		{"§1 title as an array", valid(func(b map[string]any) { b["title"] = []string{"a"} }), 400, "invalid_request"},
		{"§11 title over 200 characters", valid(func(b map[string]any) { b["title"] = strings.Repeat("t", 201) }), 422, "validation_failed"},
		{"§11 missing description", valid(func(b map[string]any) { delete(b, "description") }), 400, "invalid_request"},
		{"§1 description as a query operator", valid(func(b map[string]any) { b["description"] = map[string]any{"$gt": ""} }), 400, "invalid_request"},
		{"§5 description of 3001 characters", valid(func(b map[string]any) { b["description"] = strings.Repeat("d", 3001) }), 422, "DESCRIPTION_TOO_LONG"},
		{"§11 description length counts code points", valid(func(b map[string]any) { b["description"] = strings.Repeat("ü", 3001) }), 422, "DESCRIPTION_TOO_LONG"},
		{"§1 unknown severity", valid(func(b map[string]any) { b["severity"] = "blocker" }), 400, "invalid_request"},
		{"§1 severity of the wrong type", valid(func(b map[string]any) { b["severity"] = true }), 400, "invalid_request"},
		{"§1 severity as a query operator", valid(func(b map[string]any) { b["severity"] = operator }), 400, "invalid_request"},
		{"§1 body over 1 MiB", valid(func(b map[string]any) { b["description"] = strings.Repeat("d", 1<<20) }), 413, "payload_too_large"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w.do(t, http.MethodPost, "/api/world/tickets", c.body, ada.Headers()).ExpectError(t, c.status, c.code)
		})
	}
	// §11: rejected requests never count toward the daily limit, and none of
	// them stored anything.
	r := w.do(t, http.MethodGet, "/api/world/tickets", nil, nil)
	if r.Body["pagination"].(map[string]any)["count"] != float64(0) {
		t.Fatalf("a rejected request stored a ticket: %s", r.Raw)
	}
	for i := range 5 {
		w.file(t, ada, "bug", "accepted "+string(rune('a'+i)))
	}
}

func TestFileNeedsALivingCitizen(t *testing.T) {
	w := newWorld(t)
	body := map[string]any{"category": "bug", "title": "t", "description": "d"}
	w.do(t, http.MethodPost, "/api/world/tickets", body, nil).ExpectError(t, 401, "unauthenticated")

	stranger := w.kit.NewAgent("Stranger", nil)
	w.do(t, http.MethodPost, "/api/world/tickets", body, stranger.Headers()).ExpectError(t, 403, "not_registered")

	// Read-your-writes (ARCHITECTURE): identity knows the new citizen before
	// this service has seen citizen.registered, and filing works at once.
	w.kit.Register(stranger)
	w.do(t, http.MethodPost, "/api/world/tickets", body, stranger.Headers()).ExpectStatus(t, 201)

	gone := w.citizen("Gone")
	w.kit.Tombstone(gone)
	testkit.Eventually(t, 10*time.Second, "tombstoned citizen refused", func() bool {
		return w.do(t, http.MethodPost, "/api/world/tickets", body, gone.Headers()).Status == 403
	})
	w.do(t, http.MethodPost, "/api/world/tickets", body, gone.Headers()).ExpectError(t, 403, "permission_denied")
}

func TestDailyLimit(t *testing.T) {
	w := newWorld(t)
	ada, bob := w.citizen("Ada"), w.citizen("Bob")
	for i := range 5 {
		w.advance(time.Minute)
		w.file(t, ada, "bug", "ticket "+string(rune('1'+i)))
	}
	body := map[string]any{"category": "bug", "title": "sixth", "description": "d"}
	r := w.do(t, http.MethodPost, "/api/world/tickets", body, ada.Headers())
	r.ExpectError(t, 429, "rate_limited")
	// 09:05 → next UTC midnight is 14 h 55 min away.
	if got := r.Header["Retry-After"]; got != "53700" {
		t.Fatalf("§5 Retry-After = %q, want 53700 (seconds to the next UTC day)", got)
	}
	// The limit is per citizen.
	w.file(t, bob, "docs", "bob's first")

	// A new UTC day of the world clock opens five new slots.
	w.clock.Set(start.Add(15 * time.Hour))
	w.file(t, ada, "bug", "next day")
	r = w.do(t, http.MethodGet, "/api/world/tickets", nil, nil)
	if r.Body["counts"].(map[string]any)["open"] != "7" {
		t.Fatalf("§5 want 7 tickets stored (5 + Bob's + next day), got %s", r.Raw)
	}
}

func TestDailyLimitHoldsUnderConcurrency(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	const n = 20
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := w.do(t, http.MethodPost, "/api/world/tickets", map[string]any{"category": "bug", "title": "parallel", "description": "d"}, ada.Headers())
			statuses[i] = r.Status
		}()
	}
	wg.Wait()
	count := map[int]int{}
	for _, s := range statuses {
		count[s]++
	}
	if count[201] != 5 || count[429] != n-5 {
		t.Fatalf("§5 %d parallel posts: %v, want exactly 5×201 and %d×429", n, count, n-5)
	}
	r := w.do(t, http.MethodGet, "/api/world/tickets", nil, nil)
	if r.Body["counts"].(map[string]any)["open"] != "5" || r.Body["pagination"].(map[string]any)["count"] != float64(5) {
		t.Fatalf("§5 want exactly 5 stored tickets: %s", r.Raw)
	}
}
