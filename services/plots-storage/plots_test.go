package plotsstorage_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"sharedworld.dev/pkg/testkit"
)

func TestClaimAndLookUp(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	r := w.do(t, http.MethodPost, "/api/world/plots/claim", map[string]any{"coordinates": map[string]any{"x": 12, "y": 5}}, ada.Headers())
	r.ExpectStatus(t, 201)
	plot := r.Body["plot"].(map[string]any)
	if plot["plot_id"] != "plot_x12_y5" || num(plot["x"]) != 12 || num(plot["y"]) != 5 ||
		plot["owner_agent_id"] != ada.ID || plot["display_name"] != "Ada" || plot["claimed_at"] != "2026-11-22T09:15:03.127Z" {
		t.Fatalf("§4 claim response: %s", r.Raw)
	}
	r = w.do(t, http.MethodGet, "/api/world/plots/plot_x12_y5", nil, nil)
	r.ExpectStatus(t, 200)
	if r.Body["plot"].(map[string]any)["owner_agent_id"] != ada.ID {
		t.Fatalf("§4 plot details: %s", r.Raw)
	}
	r = w.do(t, http.MethodGet, "/api/world/plots/plot_0_0", nil, nil)
	commons := r.Body["plot"].(map[string]any)
	if commons["owner_agent_id"] != "system_commons" || commons["display_name"] != "The Commons" || num(commons["x"]) != 0 {
		t.Fatalf("§4 commons: %s", r.Raw)
	}
}

// TestConcurrentClaimsOfOneCell: §4 "Concurrent claims of one cell: exactly one wins".
func TestConcurrentClaimsOfOneCell(t *testing.T) {
	w := newWorld(t)
	const n = 10
	agents := make([]testkit.Agent, n)
	for i := range agents {
		agents[i] = w.citizen(fmt.Sprintf("C%d", i))
	}
	statuses := make([]int, n)
	codes := make([]any, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			r := w.do(t, http.MethodPost, "/api/world/plots/claim", map[string]any{"x": 7, "y": 7}, agents[i].Headers())
			statuses[i], codes[i] = r.Status, r.Body["error"]
		}()
	}
	close(start)
	wg.Wait()
	winners := 0
	for i, s := range statuses {
		switch {
		case s == 201:
			winners++
		case s == 409 && codes[i] == "conflict":
		default:
			t.Fatalf("§4 claim %d answered %d %v", i, s, codes[i])
		}
	}
	if winners != 1 {
		t.Fatalf("§4 race: %d claims of one cell won, want exactly 1 (statuses %v)", winners, statuses)
	}
}

// TestConcurrentClaimsByOneCitizen: one plot per citizen holds under a race.
func TestConcurrentClaimsByOneCitizen(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	const n = 10
	statuses := make([]int, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			statuses[i] = w.do(t, http.MethodPost, "/api/world/plots/claim", map[string]any{"x": 20 + i, "y": 3}, ada.Headers()).Status
		}()
	}
	close(start)
	wg.Wait()
	won := 0
	for _, s := range statuses {
		if s == 201 {
			won++
		} else if s != 409 {
			t.Fatalf("§4 claim answered %d", s)
		}
	}
	if won != 1 {
		t.Fatalf("§4 one plot per citizen: %d claims won (statuses %v)", won, statuses)
	}
	r := w.do(t, http.MethodGet, "/api/world/plots?limit=100", nil, nil)
	if got := len(r.Body["plots"].([]any)); got != 2 { // the commons and Ada's
		t.Fatalf("§4 claimed plots after the race: %d, want 2: %s", got, r.Raw)
	}
}

func TestClaimErrors(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	bob := w.citizen("Bob")
	stranger := w.kit.NewAgent("Stranger", nil) // valid identity, never registered
	w.claim(t, bob, 3, 3)
	cases := []struct {
		name    string
		body    any
		headers map[string]string
		status  int
		code    string
	}{
		{"§2 no credentials", map[string]any{"x": 1, "y": 1}, nil, 401, "unauthenticated"},
		{"§1 not a citizen", map[string]any{"x": 1, "y": 1}, stranger.Headers(), 403, "not_registered"},
		{"§1 malformed JSON", `{"x": 1,`, ada.Headers(), 400, "invalid_request"},
		{"§11 missing cell", map[string]any{}, ada.Headers(), 400, "invalid_request"},
		{"§11 only x", map[string]any{"x": 1}, ada.Headers(), 400, "invalid_request"},
		{"§1 x as a string", map[string]any{"x": "1", "y": 1}, ada.Headers(), 400, "invalid_request"},
		{"§1 x as a fraction", map[string]any{"x": 1.5, "y": 1}, ada.Headers(), 400, "invalid_request"},
		{"§1 coordinates not an object", map[string]any{"coordinates": []int{1, 2}}, ada.Headers(), 400, "invalid_request"},
		{"§1 coordinates with a query operator", map[string]any{"coordinates": map[string]any{"x": map[string]any{"$gt": 0}, "y": 1}}, ada.Headers(), 400, "invalid_request"},
		{"§4 forms disagree", map[string]any{"coordinates": map[string]any{"x": 1, "y": 2}, "x": 2, "y": 1}, ada.Headers(), 400, "invalid_request"},
		{"§4 x over 999", map[string]any{"x": 1000, "y": 1}, ada.Headers(), 422, "validation_failed"},
		{"§4 negative y", map[string]any{"x": 1, "y": -1}, ada.Headers(), 422, "validation_failed"},
		{"§4 huge x", map[string]any{"x": 1e30, "y": 1}, ada.Headers(), 422, "validation_failed"},
		{"§4 the commons is taken", map[string]any{"x": 0, "y": 0}, ada.Headers(), 409, "conflict"},
		{"§4 a taken cell", map[string]any{"coordinates": map[string]any{"x": 3, "y": 3}}, ada.Headers(), 409, "conflict"},
		{"§4 owner claims a second plot", map[string]any{"x": 4, "y": 4}, bob.Headers(), 409, "conflict"},
		{"§4 owner claims their own cell again", map[string]any{"x": 3, "y": 3}, bob.Headers(), 409, "conflict"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w.do(t, http.MethodPost, "/api/world/plots/claim", c.body, c.headers).ExpectError(t, c.status, c.code)
		})
	}
	// None of the refusals claimed anything for Ada.
	w.claim(t, ada, 1, 1)
}

func TestAbandonReleasesAndDeletesFiles(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	bob := w.citizen("Bob")
	w.do(t, http.MethodPost, "/api/world/plots/abandon", nil, ada.Headers()).ExpectError(t, 404, "not_found")

	id := w.claim(t, ada, 2, 9)
	w.write(t, ada, id, "/secret.txt", []byte("ada's")).ExpectStatus(t, 201)
	r := w.do(t, http.MethodPost, "/api/world/plots/abandon", nil, ada.Headers())
	r.ExpectStatus(t, 200)
	if r.Body["plot_id"] != id || r.Body["released_at"] != "2026-11-22T09:15:03.127Z" {
		t.Fatalf("§4 abandon response: %s", r.Raw)
	}
	w.do(t, http.MethodGet, "/api/world/plots/"+id, nil, nil).ExpectError(t, 404, "not_found")
	w.do(t, http.MethodPost, "/api/world/plots/abandon", nil, ada.Headers()).ExpectError(t, 404, "not_found")

	// The cell is free again; its next owner finds it empty.
	w.claim(t, bob, 2, 9)
	w.read(t, bob.Headers(), id, "/secret.txt").ExpectError(t, 404, "not_found")
	r = w.do(t, http.MethodGet, "/api/world/storage/list?plot_id="+id, nil, bob.Headers())
	if num(r.Body["total"]) != 0 {
		t.Fatalf("§4 abandon deletes files: %s", r.Raw)
	}
	// Ada may claim again: abandoning freed her one plot.
	w.claim(t, ada, 2, 10)
}

func TestAvailableNearest(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	r := w.do(t, http.MethodGet, "/api/world/plots/available?limit=3", nil, nil)
	r.ExpectStatus(t, 200)
	got := cells(r)
	if fmt.Sprint(got) != "[plot_x0_y1 plot_x1_y0 plot_x1_y1]" || num(r.Body["total"]) != 999_999 {
		t.Fatalf("§11 available from the origin: %v total %v", got, r.Body["total"])
	}
	w.claim(t, ada, 10, 10)
	r = w.do(t, http.MethodGet, "/api/world/plots/available?near_x=10&near_y=10&limit=4", nil, nil)
	if got := cells(r); fmt.Sprint(got) != "[plot_x9_y10 plot_x10_y9 plot_x10_y11 plot_x11_y10]" || num(r.Body["total"]) != 999_998 {
		t.Fatalf("§11 available near (10,10): %v total %v", got, r.Body["total"])
	}
	first := r.Body["plots"].([]any)[0].(map[string]any)
	if num(first["x"]) != 9 || num(first["y"]) != 10 {
		t.Fatalf("§4 available items carry x and y: %v", first)
	}
	r = w.do(t, http.MethodGet, "/api/world/plots/available", nil, nil)
	if len(r.Body["plots"].([]any)) != 50 {
		t.Fatalf("§1 default limit 50: %d", len(r.Body["plots"].([]any)))
	}
	r = w.do(t, http.MethodGet, "/api/world/plots/available?limit=500", nil, nil)
	if len(r.Body["plots"].([]any)) != 100 {
		t.Fatalf("§11 limit capped at 100: %d", len(r.Body["plots"].([]any)))
	}
	for _, c := range []struct {
		query  string
		status int
		code   string
	}{
		{"limit=ten", 400, "invalid_request"},
		{"limit=0", 400, "invalid_request"},
		{"near_x=abc", 400, "invalid_request"},
		{"near_x=1.5", 400, "invalid_request"},
		{"near_x=1000", 422, "validation_failed"},
		{"near_y=-1", 422, "validation_failed"},
	} {
		w.do(t, http.MethodGet, "/api/world/plots/available?"+c.query, nil, nil).ExpectError(t, c.status, c.code)
	}
}

func cells(r testkit.Response) []string {
	var out []string
	for _, p := range r.Body["plots"].([]any) {
		out = append(out, p.(map[string]any)["plot_id"].(string))
	}
	return out
}

func TestPlotLookupErrors(t *testing.T) {
	w := newWorld(t)
	for _, id := range []string{"plot_x5_y5", "plot_x05_y5", "plot_x0_y0", "plot_x1000_y1", "nonsense", "plot_x1_y1%00"} {
		w.do(t, http.MethodGet, "/api/world/plots/"+id, nil, nil).ExpectError(t, 404, "not_found")
	}
	w.do(t, http.MethodDelete, "/api/world/plots/plot_0_0", nil, nil).ExpectError(t, 405, "method_not_allowed")
	w.do(t, http.MethodGet, "/api/world/plots/plot_0_0/nothing", nil, nil).ExpectError(t, 404, "not_found")
}

func TestListPlotsPages(t *testing.T) {
	w := newWorld(t)
	want := []string{"plot_0_0"}
	for i, cell := range [][2]int{{5, 1}, {0, 7}, {5, 0}, {2, 2}} {
		w.claim(t, w.citizen(fmt.Sprintf("L%d", i)), cell[0], cell[1])
	}
	want = append(want, "plot_x0_y7", "plot_x2_y2", "plot_x5_y0", "plot_x5_y1")
	var got []string
	path := "/api/world/plots?limit=2"
	for pages := 0; ; pages++ {
		if pages > 5 {
			t.Fatal("§1 pagination does not end")
		}
		r := w.do(t, http.MethodGet, path, nil, nil)
		r.ExpectStatus(t, 200)
		got = append(got, cells(r)...)
		page := r.Body["pagination"].(map[string]any)
		if num(page["limit"]) != 2 || num(page["count"]) != len(r.Body["plots"].([]any)) {
			t.Fatalf("§1 pagination fields: %s", r.Raw)
		}
		next, ok := page["next"].(string)
		if !ok {
			break
		}
		path = "/api/world/plots?limit=2&cursor=" + next
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("§11 plots by x then y: %v, want %v", got, want)
	}
	w.do(t, http.MethodGet, "/api/world/plots?cursor=bogus!", nil, nil).ExpectError(t, 400, "invalid_request")
}

// A refusal names the field as the client sent it (not the
// Go type it is decoded through) and the coordinate as sent (1e20, not a
// clamped 1099511627776).
func TestClaimRefusalsNameWhatWasSent(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	r := w.do(t, http.MethodPost, "/api/world/plots/claim", `{"x":1e20,"y":7}`, ada.Headers())
	r.ExpectError(t, 422, "validation_failed")
	if !strings.Contains(r.Body["message"].(string), "1e20") || strings.Contains(string(r.Raw), "1099511627776") {
		t.Fatalf("the coordinate as sent: %s", r.Raw)
	}
	r = w.do(t, http.MethodPost, "/api/world/plots/claim", `{"x":"1","y":7}`, ada.Headers())
	r.ExpectError(t, 400, "invalid_request")
	if !strings.Contains(r.Body["message"].(string), `"x"`) || strings.Contains(string(r.Raw), "cellJSON") {
		t.Fatalf("the field as sent: %s", r.Raw)
	}
	plot := w.claim(t, ada, 3, 4)
	r = w.do(t, http.MethodPut, "/api/world/plots/"+plot+"/permissions", `{"allowed_agents":"x"}`, ada.Headers())
	r.ExpectError(t, 400, "invalid_request")
	if !strings.Contains(r.Body["message"].(string), `"allowed_agents"`) || strings.Contains(string(r.Raw), "permissionFields") {
		t.Fatalf("the field as sent: %s", r.Raw)
	}
}

// TestOwnerClaimsAnAbandonedCell: §4 one plot per citizen is 409 conflict
// also when the cell was claimed and abandoned before (a cell's document
// then exists and the claim is an update, not an insert).
func TestOwnerClaimsAnAbandonedCell(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	bob := w.citizen("Bob")
	w.claim(t, ada, 860, 123)
	w.do(t, http.MethodPost, "/api/world/plots/abandon", nil, ada.Headers()).ExpectStatus(t, 200)
	w.claim(t, bob, 5, 5)
	w.do(t, http.MethodPost, "/api/world/plots/claim", map[string]any{"x": 860, "y": 123}, bob.Headers()).ExpectError(t, 409, "conflict")
	// The refusal changed nothing: the cell is still free, Bob keeps his plot.
	w.do(t, http.MethodGet, "/api/world/plots/plot_x860_y123", nil, nil).ExpectError(t, 404, "not_found")
	w.claim(t, ada, 860, 123)
}
