package identity_test

import (
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/testkit"
)

func TestRegisterLookupWhoami(t *testing.T) {
	w := newWorld(t)
	ada := w.kit.NewAgent("Ada", nil)

	r := w.do(t, http.MethodGet, "/api/world/whoami", nil, ada.Headers())
	r.ExpectStatus(t, 200)
	if r.Body["registered"] != false || r.Body["agent_id"] != ada.ID || r.Body["citizen"] != nil {
		t.Fatalf("whoami before registering: %s", r.Raw)
	}

	r = w.register(t, ada, map[string]any{"name": "<b>Ada</b> Lovelace", "directory_visible": true, "interests": []string{"math"}})
	r.ExpectStatus(t, 201)
	cit := r.Body["citizen"].(map[string]any)
	if cit["agent_id"] != ada.ID || cit["name"] != "Ada Lovelace" || cit["citizen_number"] != float64(1) {
		t.Fatalf("registered citizen: %s", r.Raw)
	}
	if ts := str(cit["registered_at"]); len(ts) != len("2026-11-22T09:15:03.127Z") || !strings.HasSuffix(ts, "Z") {
		t.Fatalf("registered_at %q is not a millisecond UTC timestamp", ts)
	}

	w.register(t, ada, nil).ExpectError(t, 409, "already_registered")

	r = w.do(t, http.MethodGet, "/api/world/citizens/"+ada.ID, nil, nil)
	r.ExpectStatus(t, 200)
	if r.Body["name"] != "Ada Lovelace" || r.Body["citizen_number"] != float64(1) || r.Body["registered_at"] != cit["registered_at"] {
		t.Fatalf("lookup: %s", r.Raw)
	}
	w.do(t, http.MethodGet, "/api/world/citizens/"+ada.ID[:len(ada.ID)-1], nil, nil).ExpectError(t, 404, "not_found")

	r = w.do(t, http.MethodGet, "/api/world/whoami", nil, ada.Headers())
	if r.Body["registered"] != true || r.Body["online"] != false || r.Body["citizen"].(map[string]any)["citizen_number"] != float64(1) {
		t.Fatalf("whoami after registering (unsigned): %s", r.Raw)
	}
}

func TestRegisterFieldsNestedUnderData(t *testing.T) {
	w := newWorld(t)
	a := w.kit.NewAgent("Nested", nil)
	r := w.register(t, a, map[string]any{"data": map[string]any{"name": "Grace", "directory_visible": true, "directory_bio": "compilers"}})
	r.ExpectStatus(t, 201)
	if r.Body["citizen"].(map[string]any)["name"] != "Grace" {
		t.Fatalf("nested name ignored: %s", r.Raw)
	}
	r = w.do(t, http.MethodGet, "/api/world/directory?search=COMPILERS", nil, nil)
	if r.Body["total"] != float64(1) {
		t.Fatalf("nested directory fields ignored: %s", r.Raw)
	}
}

func TestRegisterErrors(t *testing.T) {
	w := newWorld(t)
	a := w.kit.NewAgent("Err", nil)
	cases := []struct {
		name    string
		body    any
		headers map[string]string
		status  int
		code    string
	}{
		{"§2 no credentials", map[string]any{"name": "x"}, nil, 401, "unauthenticated"},
		{"§1 malformed JSON", `{"name": "x"`, a.Headers(), 400, "invalid_request"},
		{"§1 body not an object", `["x"]`, a.Headers(), 400, "invalid_request"},
		{"§1 name of the wrong type", map[string]any{"name": 42}, a.Headers(), 400, "invalid_request"},
		{"§1 name as a query object", map[string]any{"name": map[string]any{"$ne": nil}}, a.Headers(), 400, "invalid_request"},
		{"§1 interests not an array", map[string]any{"interests": "math"}, a.Headers(), 400, "invalid_request"},
		{"§11 name over 100", map[string]any{"name": strings.Repeat("n", 101)}, a.Headers(), 422, "validation_failed"},
		{"§11 directory_bio over 500", map[string]any{"directory_bio": strings.Repeat("b", 501)}, a.Headers(), 422, "validation_failed"},
		{"§11 11 interests", map[string]any{"interests": strings.Split("a,b,c,d,e,f,g,h,i,j,k", ",")}, a.Headers(), 422, "validation_failed"},
		{"§11 interest over 32", map[string]any{"interests": []string{strings.Repeat("i", 33)}}, a.Headers(), 422, "validation_failed"},
		{"§1 body over 1 MiB", map[string]any{"name": strings.Repeat("x", 1<<20+1)}, a.Headers(), 413, "payload_too_large"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w.do(t, http.MethodPost, "/api/world/register", c.body, c.headers).ExpectError(t, c.status, c.code)
		})
	}
	// None of the refused requests registered the agent or used a number.
	w.register(t, a, nil).ExpectStatus(t, 201)
	r := w.do(t, http.MethodGet, "/api/world/citizens/"+a.ID, nil, nil)
	if r.Body["citizen_number"] != float64(1) {
		t.Fatalf("refused registrations consumed citizen numbers: %s", r.Raw)
	}
}

func TestUnknownPathAndWrongMethodAreJSON(t *testing.T) {
	w := newWorld(t)
	w.do(t, http.MethodGet, "/nope", nil, nil).ExpectError(t, 404, "not_found")
	w.do(t, http.MethodGet, "/api/world/nope", nil, nil).ExpectError(t, 404, "not_found")
	w.do(t, http.MethodDelete, "/api/world/directory", nil, nil).ExpectError(t, 405, "method_not_allowed")
}

func TestParallelRegistrationsNumberWithoutGaps(t *testing.T) {
	w := newWorld(t)
	const n = 50
	agents := make([]testkit.Agent, n)
	for i := range agents {
		agents[i] = w.kit.NewAgent("P", nil)
	}
	numbers := make([]int, n)
	var wg sync.WaitGroup
	for i := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := w.register(t, agents[i], nil)
			if r.Status != 201 {
				t.Errorf("registration %d: %d %s", i, r.Status, r.Raw)
				return
			}
			numbers[i] = int(r.Body["citizen"].(map[string]any)["citizen_number"].(float64))
		}()
	}
	wg.Wait()
	sort.Ints(numbers)
	for i, got := range numbers {
		if got != i+1 {
			t.Fatalf("citizen numbers are not 1..%d without gaps or repeats: %v", n, numbers)
		}
	}
}

func TestParallelRegistrationsOfOneAgent(t *testing.T) {
	w := newWorld(t)
	a := w.kit.NewAgent("Same", nil)
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := w.register(t, a, nil)
			mu.Lock()
			statuses[r.Status]++
			mu.Unlock()
			if r.Status == 409 && r.Body["error"] != "already_registered" {
				t.Errorf("409 with code %v", r.Body["error"])
			}
		}()
	}
	wg.Wait()
	if statuses[201] != 1 || statuses[409] != 9 {
		t.Fatalf("want one 201 and nine 409, got %v", statuses)
	}
	b := w.kit.NewAgent("Next", nil)
	r := w.register(t, b, nil)
	if r.Body["citizen"].(map[string]any)["citizen_number"] != float64(2) {
		t.Fatalf("the nine refused registrations consumed numbers: %s", r.Raw)
	}
}

func TestProfile(t *testing.T) {
	w := newWorld(t)
	a := w.kit.NewAgent("Prof", nil)
	w.do(t, http.MethodGet, "/api/world/profile", nil, a.Headers()).ExpectError(t, 403, "not_registered")
	w.register(t, a, map[string]any{"name": "Prof"}).ExpectStatus(t, 201)

	r := w.do(t, http.MethodPut, "/api/world/profile", map[string]any{"bio": "<p>I study</p> graphs", "interests": []string{"graphs", "art"}}, a.Headers())
	r.ExpectStatus(t, 200)
	p := r.Body["profile"].(map[string]any)
	if p["bio"] != "I study graphs" || p["name"] != "Prof" || len(p["interests"].([]any)) != 2 {
		t.Fatalf("top-level profile update: %s", r.Raw)
	}
	r = w.do(t, http.MethodPut, "/api/world/profile", map[string]any{"profile": map[string]any{"name": "Professor", "directory_visible": true}}, a.Headers())
	p = r.Body["profile"].(map[string]any)
	if p["name"] != "Professor" || p["directory_visible"] != true || p["bio"] != "I study graphs" {
		t.Fatalf("nested profile update must change only the fields sent: %s", r.Raw)
	}
	w.do(t, http.MethodPut, "/api/world/profile", map[string]any{"bio": strings.Repeat("b", 2001)}, a.Headers()).ExpectError(t, 422, "validation_failed")
	w.do(t, http.MethodPut, "/api/world/profile", map[string]any{"directory_visible": "yes"}, a.Headers()).ExpectError(t, 400, "invalid_request")
	r = w.do(t, http.MethodGet, "/api/world/profile", nil, a.Headers())
	if r.Body["profile"].(map[string]any)["bio"] != "I study graphs" {
		t.Fatalf("a refused update changed the profile: %s", r.Raw)
	}
	if r.Body["profile"].(map[string]any)["last_seen_at"] == nil {
		t.Fatalf("authenticated requests must set last_seen_at: %s", r.Raw)
	}
}

func TestDirectory(t *testing.T) {
	w := newWorld(t)
	reg := func(name string, visible bool, bio string, interests []string) {
		a := w.kit.NewAgent(name, nil)
		w.register(t, a, map[string]any{"name": name, "directory_visible": visible, "directory_bio": bio, "interests": interests}).ExpectStatus(t, 201)
	}
	reg("Alice", true, "loves Gardens", []string{"garden"})
	reg("Bob", true, "builds bridges", []string{"Engineering"})
	reg("Carol", false, "hidden gardener", []string{"garden"})
	reg("", true, "nameless gardener", []string{"garden"})
	reg("Dave", true, "", nil)

	cases := []struct {
		name  string
		query string
		names []string
		total float64
		more  bool
	}{
		{"§3 only visible named citizens", "", []string{"Alice", "Bob", "Dave"}, 3, false},
		{"§11 search matches bio, case-insensitive", "?search=GARDEN", []string{"Alice"}, 1, false},
		{"§11 search matches name", "?search=bo", []string{"Bob"}, 1, false},
		{"§3 interest filter, case-insensitive", "?interest=engineering", []string{"Bob"}, 1, false},
		{"§3 limit and has_more", "?limit=2", []string{"Alice", "Bob"}, 3, true},
		{"§3 offset", "?limit=2&offset=2", []string{"Dave"}, 3, false},
		{"§1 regex characters are literal", "?search=.*", nil, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := w.do(t, http.MethodGet, "/api/world/directory"+c.query, nil, nil)
			r.ExpectStatus(t, 200)
			var names []string
			for _, e := range r.Body["citizens"].([]any) {
				names = append(names, e.(map[string]any)["name"].(string))
			}
			if strings.Join(names, ",") != strings.Join(c.names, ",") || r.Body["total"] != c.total || r.Body["has_more"] != c.more {
				t.Fatalf("got %v total %v has_more %v: %s", names, r.Body["total"], r.Body["has_more"], r.Raw)
			}
		})
	}
	w.do(t, http.MethodGet, "/api/world/directory?limit=abc", nil, nil).ExpectError(t, 400, "invalid_request")
	w.do(t, http.MethodGet, "/api/world/directory?offset=-1", nil, nil).ExpectError(t, 400, "invalid_request")
}

func TestPresenceOnlineWithSignature(t *testing.T) {
	w := newWorld(t)
	a := w.kit.NewAgent("Sig", nil)
	w.register(t, a, nil).ExpectStatus(t, 201)
	h := a.Headers()
	h["X-Agent-Signature"] = auth.SignRequest(a.Key, "GET", "/api/world/whoami", time.Now().Unix(), nil)
	r := w.do(t, http.MethodGet, "/api/world/whoami", nil, h)
	if r.Body["online"] != true {
		t.Fatalf("a signed request must make the citizen online: %s", r.Raw)
	}
	// A later unsigned request still sees the citizen online (seen with a signature within 15 minutes).
	r = w.do(t, http.MethodGet, "/api/world/whoami", nil, a.Headers())
	if r.Body["online"] != true {
		t.Fatalf("online must last 15 minutes after a signed request: %s", r.Raw)
	}
}

func TestTombstone(t *testing.T) {
	w := newWorld(t)
	a := w.kit.NewAgent("Tomb", nil)
	w.register(t, a, map[string]any{"name": "Tomb", "directory_visible": true}).ExpectStatus(t, 201)
	path := "/api/admin/citizens/" + a.ID + "/tombstone"
	w.do(t, http.MethodPost, path, nil, a.Headers()).ExpectError(t, 401, "unauthenticated")
	w.do(t, http.MethodPost, path, nil, map[string]string{"Authorization": "Bearer wrong-token-wrong-token"}).ExpectError(t, 401, "unauthenticated")
	admin := map[string]string{"Authorization": "Bearer " + testkit.AmbassadorToken}
	w.do(t, http.MethodPost, "/api/admin/citizens/emb_000000000000000000000000/tombstone", nil, admin).ExpectError(t, 404, "not_found")
	w.do(t, http.MethodPost, path, nil, admin).ExpectStatus(t, 200)
	w.do(t, http.MethodPost, path, nil, admin).ExpectError(t, 409, "conflict")

	w.do(t, http.MethodGet, "/api/world/citizens/"+a.ID, nil, nil).ExpectError(t, 404, "not_found")
	w.do(t, http.MethodGet, "/api/world/profile", nil, a.Headers()).ExpectError(t, 403, "permission_denied")
	w.do(t, http.MethodGet, "/api/world/whoami", nil, a.Headers()).ExpectError(t, 403, "permission_denied")
	w.register(t, a, nil).ExpectError(t, 403, "permission_denied")
	if r := w.do(t, http.MethodGet, "/api/world/directory", nil, nil); r.Body["total"] != float64(0) {
		t.Fatalf("a tombstoned citizen stays in the directory: %s", r.Raw)
	}
}
