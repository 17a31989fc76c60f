package tickets_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"sharedworld.dev/pkg/testkit"
)

// listIDs fetches one page and returns its ticket ids and next cursor.
func (w *world) listIDs(t *testing.T, query string) ([]string, *string, testkit.Response) {
	t.Helper()
	r := w.do(t, http.MethodGet, "/api/world/tickets"+query, nil, nil)
	r.ExpectStatus(t, 200)
	var ids []string
	for _, tk := range r.Body["tickets"].([]any) {
		ids = append(ids, tk.(map[string]any)["ticket_id"].(string))
	}
	p := r.Body["pagination"].(map[string]any)
	if p["count"] != float64(len(ids)) {
		t.Fatalf("§1 pagination.count %v for %d tickets", p["count"], len(ids))
	}
	if p["next"] == nil {
		return ids, nil, r
	}
	next := p["next"].(string)
	return ids, &next, r
}

func TestListOrderFiltersAndCounts(t *testing.T) {
	w := newWorld(t)
	ada, bob := w.citizen("Ada"), w.citizen("Bob")
	var ids []string // in filing order
	for i, c := range []string{"bug", "docs", "feature", "bug", "docs"} {
		w.advance(time.Second)
		ids = append(ids, w.file(t, ada, c, fmt.Sprintf("ada %d", i)))
	}
	for i, c := range []string{"bug", "feature"} {
		w.advance(time.Second)
		ids = append(ids, w.file(t, bob, c, fmt.Sprintf("bob %d", i)))
	}
	w.triage(t, ids[0], map[string]any{"status": "acknowledged"}).ExpectStatus(t, 200)
	w.triage(t, ids[1], map[string]any{"status": "resolved"}).ExpectStatus(t, 200)
	w.triage(t, ids[3], map[string]any{"status": "resolved"}).ExpectStatus(t, 200)

	newestFirst := func(idx ...int) []string {
		out := make([]string, len(idx))
		for i, n := range idx {
			out[i] = ids[n]
		}
		return out
	}
	cases := []struct {
		name  string
		query string
		want  []string
	}{
		{"§5 all tickets newest created_at first", "", newestFirst(6, 5, 4, 3, 2, 1, 0)},
		{"§5 status filter", "?status=open", newestFirst(6, 5, 4, 2)},
		{"§5 status filter resolved", "?status=resolved", newestFirst(3, 1)},
		{"§5 category filter", "?category=bug", newestFirst(5, 3, 0)},
		{"§5 both filters", "?status=open&category=feature", newestFirst(6, 2)},
		{"§5 a filter with no match is an empty list", "?status=acknowledged&category=docs", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, next, r := w.listIDs(t, c.query)
			if fmt.Sprint(got) != fmt.Sprint(c.want) || next != nil {
				t.Fatalf("ids %v next %v, want %v and no next", got, next, c.want)
			}
			// Counts are over all tickets whatever the filter, as decimal strings.
			counts := r.Body["counts"].(map[string]any)
			if counts["open"] != "4" || counts["acknowledged"] != "1" || counts["resolved"] != "2" {
				t.Fatalf("§5 counts = %v, want open 4, acknowledged 1, resolved 2 as strings", counts)
			}
			if r.Body["pagination"].(map[string]any)["limit"] != float64(50) {
				t.Fatalf("§5 default pagination.limit must be 50: %s", r.Raw)
			}
		})
	}
}

func TestListQueryRejections(t *testing.T) {
	w := newWorld(t)
	w.file(t, w.citizen("Ada"), "bug", "one")
	cases := []struct {
		name  string
		query string
	}{
		{"§1 unknown status value", "?status=closed"},
		{"§1 unknown category value", "?category=praise"},
		{"§11 non-numeric limit", "?limit=ten"},
		{"§11 limit zero", "?limit=0"},
		{"§11 negative limit", "?limit=-5"},
		{"§11 unknown cursor", "?cursor=bm90LWEtY3Vyc29y"},
		{"§11 cursor that is not base64", "?cursor=%24%24%24"},
		{"§11 cursor naming no ticket shape", "?cursor=" + url.QueryEscape(`eyJ0IjoxLCJpZCI6IngifQ`)},
		{"§1 an operator object as a status is just an unknown value", "?status=" + url.QueryEscape(`{"$ne":null}`)},
		{"§1 an operator object as a category is just an unknown value", "?category=" + url.QueryEscape(`{"$in":["bug"]}`)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w.do(t, http.MethodGet, "/api/world/tickets"+c.query, nil, nil).ExpectError(t, 400, "invalid_request")
		})
	}
	// A bracketed parameter is another parameter, never an operator on status.
	if ids, _, _ := w.listIDs(t, "?status[$ne]=open"); len(ids) != 1 {
		t.Fatalf("§1 status[$ne] must be ignored as an unknown parameter, got %v", ids)
	}
	_, _, r := w.listIDs(t, "?limit=1000")
	if r.Body["pagination"].(map[string]any)["limit"] != float64(100) {
		t.Fatalf("§11 limit above 100 must be capped at 100: %s", r.Raw)
	}
}

func TestCursorPagesAreStableUnderConcurrentInserts(t *testing.T) {
	w := newWorld(t)
	var filers []testkit.Agent
	for i := range 10 {
		filers = append(filers, w.citizen(fmt.Sprint("F", i)))
	}
	var want []string // newest first
	// Three tickets per millisecond, so pages split inside a millisecond and
	// the id tie-break is what keeps the order total.
	for i := range 30 {
		if i%3 == 0 {
			w.advance(time.Millisecond)
		}
		want = append([]string{w.file(t, filers[i%10], "bug", fmt.Sprint("old ", i))}, want...)
	}
	// The ids within one millisecond are ordered greatest first.
	for i := 0; i < len(want); i += 3 {
		ms := append([]string(nil), want[i:i+3]...)
		sortDesc(ms)
		copy(want[i:i+3], ms)
	}

	var got []string
	seen := map[string]bool{}
	query := "?limit=4"
	for page := 0; ; page++ {
		ids, next, _ := w.listIDs(t, query)
		for _, id := range ids {
			if seen[id] {
				t.Fatalf("§1 ticket %s repeated on page %d", id, page)
			}
			seen[id] = true
		}
		got = append(got, ids...)
		// New tickets arrive between pages (a later world time, as new
		// tickets always have); they sort before page one and never shift
		// the pages still to come.
		w.advance(time.Millisecond)
		w.file(t, filers[page%10], "docs", fmt.Sprint("new ", page))
		if next == nil {
			break
		}
		query = "?limit=4&cursor=" + url.QueryEscape(*next)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("§1 paging while inserting:\n got %v\nwant %v", got, want)
	}
}

func sortDesc(s []string) {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] > s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
}
