package tickets_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestTriageTransitions(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	a := w.file(t, ada, "bug", "goes open → acknowledged → resolved")
	b := w.file(t, ada, "docs", "goes open → resolved")

	w.advance(time.Hour)
	r := w.triage(t, a, map[string]any{"status": "acknowledged", "response": "Looking into it."})
	r.ExpectStatus(t, 200)
	tk := r.Body["ticket"].(map[string]any)
	if tk["status"] != "acknowledged" || tk["response"] != "Looking into it." || tk["updated_at"] != "2026-11-22T10:00:00.000Z" || tk["created_at"] != "2026-11-22T09:00:00.000Z" {
		t.Fatalf("§5 open→acknowledged: %s", r.Raw)
	}
	r = w.triage(t, a, map[string]any{"status": "resolved"})
	r.ExpectStatus(t, 200)
	if tk := r.Body["ticket"].(map[string]any); tk["status"] != "resolved" || tk["response"] != "Looking into it." {
		t.Fatalf("§5 acknowledged→resolved keeps the earlier response: %s", r.Raw)
	}
	w.triage(t, b, map[string]any{"status": "resolved", "response": "Fixed."}).ExpectStatus(t, 200)

	cases := []struct {
		name   string
		id     string
		body   any
		status int
		code   string
	}{
		{"§5 nothing leaves resolved: →open", a, map[string]any{"status": "open"}, 409, "conflict"},
		{"§5 nothing leaves resolved: →acknowledged", b, map[string]any{"status": "acknowledged"}, 409, "conflict"},
		{"§5 nothing leaves resolved: →resolved", b, map[string]any{"status": "resolved"}, 409, "conflict"},
		{"§11 unknown status value", a, map[string]any{"status": "closed"}, 400, "invalid_request"},
		{"§11 missing status", a, map[string]any{"response": "x"}, 400, "invalid_request"},
		{"§1 status as a query operator", a, map[string]any{"status": map[string]any{"$ne": nil}}, 400, "invalid_request"},
		{"§1 response of the wrong type", a, map[string]any{"status": "resolved", "response": 7}, 400, "invalid_request"},
		{"§1 malformed JSON", a, `{"status":`, 400, "invalid_request"},
		{"§11 response over 3000 characters", a, map[string]any{"status": "resolved", "response": strings.Repeat("r", 3001)}, 422, "validation_failed"},
		{"§1 unknown ticket", "tkt_00000000", map[string]any{"status": "resolved"}, 404, "not_found"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { w.triage(t, c.id, c.body).ExpectError(t, c.status, c.code) })
	}
	if tk := w.do(t, http.MethodGet, "/api/world/tickets/"+b, nil, nil).Body["ticket"].(map[string]any); tk["status"] != "resolved" || tk["response"] != "Fixed." {
		t.Fatalf("§5 refused transitions changed the ticket: %v", tk)
	}
}

func TestTriageFromOpenBackIsRefused(t *testing.T) {
	w := newWorld(t)
	id := w.file(t, w.citizen("Ada"), "bug", "t")
	w.triage(t, id, map[string]any{"status": "open"}).ExpectError(t, 409, "conflict")
	w.triage(t, id, map[string]any{"status": "acknowledged"}).ExpectStatus(t, 200)
	w.triage(t, id, map[string]any{"status": "acknowledged"}).ExpectError(t, 409, "conflict")
	w.triage(t, id, map[string]any{"status": "open"}).ExpectError(t, 409, "conflict")
}

func TestTriageIsForTheAmbassadorOnly(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	id := w.file(t, ada, "bug", "mine")
	body := map[string]any{"status": "resolved"}
	cases := []struct {
		name    string
		method  string
		path    string
		headers map[string]string
		status  int
		code    string
	}{
		{"§11 no token", http.MethodPatch, "/api/admin/tickets/" + id, nil, 401, "unauthenticated"},
		{"§11 wrong token", http.MethodPatch, "/api/admin/tickets/" + id, map[string]string{"Authorization": "Bearer nope"}, 401, "unauthenticated"},
		{"§11 the filer's credentials are not a token", http.MethodPatch, "/api/admin/tickets/" + id, ada.Headers(), 401, "unauthenticated"},
		{"§5 the filer cannot edit", http.MethodPatch, "/api/world/tickets/" + id, ada.Headers(), 405, "method_not_allowed"},
		{"§5 the filer cannot withdraw", http.MethodDelete, "/api/world/tickets/" + id, ada.Headers(), 405, "method_not_allowed"},
		{"§5 no replacing a ticket", http.MethodPut, "/api/world/tickets/" + id, ada.Headers(), 405, "method_not_allowed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { w.do(t, c.method, c.path, body, c.headers).ExpectError(t, c.status, c.code) })
	}
	if tk := w.do(t, http.MethodGet, "/api/world/tickets/"+id, nil, nil).Body["ticket"].(map[string]any); tk["status"] != "open" {
		t.Fatalf("§5 the ticket changed without the ambassador: %v", tk)
	}
}

func TestConcurrentTriageDecidesOnce(t *testing.T) {
	w := newWorld(t)
	id := w.file(t, w.citizen("Ada"), "bug", "t")
	const n = 8
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := w.triage(t, id, map[string]any{"status": "acknowledged"}).Status
			mu.Lock()
			statuses[s]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if statuses[200] != 1 || statuses[409] != n-1 {
		t.Fatalf("§5 %d parallel open→acknowledged: %v, want exactly one 200", n, statuses)
	}
}
