package bulletin_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"sharedworld.dev/pkg/events"
	plotsv1 "sharedworld.dev/proto/plots/v1"
	ticketsv1 "sharedworld.dev/proto/tickets/v1"
	"sharedworld.dev/services/bulletin"
)

// TestEventsPages walks GET /api/world/events with cursors: newest first,
// every item once, a type filter, and the contract's answers to bad input
// (CONTRACT §1, §6, §11).
func TestEventsPages(t *testing.T) {
	w := newWorld(t, bulletin.Options{})
	var evs []events.Event
	for i := range 7 {
		id := fmt.Sprintf("tkt_%08x", i)
		evs = append(evs, ev(id, &ticketsv1.TicketFiled{TicketId: id, Category: "bug", Title: fmt.Sprintf("t%d", i), Status: "open", CreatedAt: pb(sec(i)), Version: 1}, sec(i)))
	}
	for i := range 3 {
		id := fmt.Sprintf("plot_x%d_y1", i+1)
		evs = append(evs, ev(id, &plotsv1.PlotClaimed{PlotId: id, X: int32(i + 1), Y: 1, OwnerAgentId: ada, ClaimedAt: pb(sec(10 + i)), Version: 1}, sec(10+i)))
	}
	w.kit.Publish(evs...)
	w.waitHandled(t, int64(len(evs)))

	var seen []string
	cursor := ""
	for page := 0; ; page++ {
		path := "/api/world/events?limit=3"
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		r := w.do(t, http.MethodGet, path, nil, nil)
		r.ExpectStatus(t, 200)
		pg := r.Body["pagination"].(map[string]any)
		items := r.Body["events"].([]any)
		if pg["limit"] != 3.0 || pg["count"] != float64(len(items)) {
			t.Fatalf("CONTRACT §1 pagination: %s", r.Raw)
		}
		for _, it := range items {
			seen = append(seen, it.(map[string]any)["id"].(string))
		}
		if pg["next"] == nil {
			break
		}
		cursor = pg["next"].(string)
		if page > 5 {
			t.Fatal("pagination does not end")
		}
	}
	want := []string{"plot_x3_y1", "plot_x2_y1", "plot_x1_y1", "tkt_00000006", "tkt_00000005", "tkt_00000004", "tkt_00000003", "tkt_00000002", "tkt_00000001", "tkt_00000000"}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Fatalf("CONTRACT §6 events newest first, each once:\n got %v\nwant %v", seen, want)
	}

	r := w.do(t, http.MethodGet, "/api/world/events?type=claim", nil, nil)
	r.ExpectStatus(t, 200)
	if items := r.Body["events"].([]any); len(items) != 3 || items[0].(map[string]any)["type"] != "claim" {
		t.Fatalf("CONTRACT §6 type filter: %s", r.Raw)
	}
	r = w.do(t, http.MethodGet, "/api/world/events?limit=500", nil, nil)
	if r.Body["pagination"].(map[string]any)["limit"] != 100.0 {
		t.Fatalf("CONTRACT §11 a limit above 100 is capped: %s", r.Raw)
	}

	// Cursors the world never issued: a made-up item (no event id of the
	// world's shape, no time), a real numbering's seq naming another item.
	var first map[string]any
	_ = json.Unmarshal(mustCursor(t, w, "/api/world/events?limit=1"), &first)
	forged := []map[string]any{
		{"at": 0, "id": "x"},
		{"at": 1795000000000, "id": "x"},
		{"at": first["at"], "id": first["id"], "e": first["e"], "s": first["s"].(float64) + 1},
	}
	bads := []string{"?type=message", "?limit=abc", "?limit=0", "?cursor=not-a-cursor", "?cursor=e30"}
	for _, f := range forged {
		b, _ := json.Marshal(f)
		bads = append(bads, "?cursor="+base64.RawURLEncoding.EncodeToString(b))
	}
	for _, bad := range bads {
		t.Run("CONTRACT §11 "+bad, func(t *testing.T) {
			w.do(t, http.MethodGet, "/api/world/events"+bad, nil, nil).ExpectError(t, 400, "invalid_request")
		})
	}
}

// TestCommonsIsNoClaim: the commons is made by the world, not claimed by a
// citizen; the feed lists citizens' claims only, each naming the claimant by
// the abbreviated agent id (SEED §2.5), while the commons stays on the map.
func TestCommonsIsNoClaim(t *testing.T) {
	w := newWorld(t, bulletin.Options{})
	w.kit.Publish(
		ev("plot_0_0", &plotsv1.PlotClaimed{PlotId: "plot_0_0", OwnerAgentId: "system_commons", DisplayName: "The Commons", ClaimedAt: pb(sec(1)), Version: 1}, sec(1)),
		ev("plot_x2_y5", &plotsv1.PlotClaimed{PlotId: "plot_x2_y5", X: 2, Y: 5, OwnerAgentId: ada, ClaimedAt: pb(sec(2)), Version: 1}, sec(2)),
	)
	w.waitHandled(t, 2)

	r := w.do(t, http.MethodGet, "/api/world/events?type=claim", nil, nil)
	r.ExpectStatus(t, 200)
	items := r.Body["events"].([]any)
	want := "#claim  " + sec(2).UTC().Format("2006-01-02T15:04:05Z") + "  plot_x2_y5  " + abbr(ada)
	if len(items) != 1 || items[0].(map[string]any)["line"] != want {
		t.Fatalf("SEED §2.5 the feed lists citizens' claims only, want the one line %q: %s", want, r.Raw)
	}
	doc := w.waitRendered(t, "the citizen's claim rendered", func(doc map[string]any) bool { return len(doc["feed"].([]any)) > 0 })
	if lines := feedLines(doc); len(lines) != 1 || lines[0] != want {
		t.Fatalf("SEED §2.5 the bulletin's feed lists citizens' claims only: %q", lines)
	}
	if plots := doc["plots"].([]any); len(plots) != 2 || plots[0].(map[string]any)["plot_id"] != "plot_0_0" {
		t.Fatalf("CONTRACT §6 the commons stays on the map: %s", jsonOf(t, plots))
	}
}

// mustCursor returns the decoded pagination.next of a page.
func mustCursor(t *testing.T, w *world, path string) []byte {
	t.Helper()
	r := w.do(t, http.MethodGet, path, nil, nil)
	next, _ := r.Body["pagination"].(map[string]any)["next"].(string)
	b, err := base64.RawURLEncoding.DecodeString(next)
	if err != nil || next == "" {
		t.Fatalf("no next cursor on %s: %s", path, r.Raw)
	}
	return b
}
