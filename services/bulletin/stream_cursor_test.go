package bulletin_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"sharedworld.dev/services/bulletin"
)

// TestStreamIDsAreCursors: the live stream's ids and the pages' cursors are
// one format. A stream event's id passed as cursor pages on from that item
// (older items only); a page's cursor sent as Last-Event-ID resumes the
// stream right after the item it names (CONTRACT §6).
func TestStreamIDsAreCursors(t *testing.T) {
	w := newWorld(t, bulletin.Options{Heartbeat: 50 * time.Millisecond})
	base := w.serve(t)
	s := openStream(t, base, "")
	// One at a time, so the stream's order is the order published.
	ids := map[string]string{}
	for i := range 4 {
		w.kit.Publish(ticketEvent(i))
		id, item := s.next(t)
		ids[item["id"].(string)] = id
	}

	pageIDs := func(r map[string]any) []string {
		var out []string
		for _, it := range r["events"].([]any) {
			out = append(out, it.(map[string]any)["id"].(string))
		}
		return out
	}
	r := w.do(t, http.MethodGet, "/api/world/events?cursor="+url.QueryEscape(ids["tkt_00000002"]), nil, nil)
	r.ExpectStatus(t, 200)
	if got := pageIDs(r.Body); len(got) != 2 || got[0] != "tkt_00000001" || got[1] != "tkt_00000000" {
		t.Fatalf("CONTRACT §6 a stream id as cursor pages on with the older items only: %s", r.Raw)
	}
	r = w.do(t, http.MethodGet, "/api/world/events?type=ticket&limit=1&cursor="+url.QueryEscape(ids["tkt_00000003"]), nil, nil)
	r.ExpectStatus(t, 200)
	if got := pageIDs(r.Body); len(got) != 1 || got[0] != "tkt_00000002" {
		t.Fatalf("CONTRACT §6 a stream id as cursor, with a type filter: %s", r.Raw)
	}

	// The second page's cursor names tkt_00000002: resuming from it sends
	// tkt_00000003, then the live items.
	r = w.do(t, http.MethodGet, "/api/world/events?limit=2", nil, nil)
	next, _ := r.Body["pagination"].(map[string]any)["next"].(string)
	if next == "" {
		t.Fatalf("a first page of 2 of 4 items has a next cursor: %s", r.Raw)
	}
	resumed := openStream(t, base, next)
	if _, item := resumed.next(t); item["id"] != "tkt_00000003" {
		t.Fatalf("CONTRACT §6 a page cursor as Last-Event-ID resumes after its item: got %v, want tkt_00000003", item["id"])
	}
	w.kit.Publish(ticketEvent(4))
	if _, item := resumed.next(t); item["id"] != "tkt_00000004" {
		t.Fatalf("then the live items: got %v", item["id"])
	}
}

// TestStreamOutlivesTheWriteTimeout: the server's read and write timeouts
// bound a request and its answer, not a live stream. With both cut to a
// fraction of a second, a stream stays open many times longer, heartbeats
// flowing, and still carries new items; shutting the service down then
// ends it cleanly (the chunked body is terminated, no error).
func TestStreamOutlivesTheWriteTimeout(t *testing.T) {
	const timeout = 300 * time.Millisecond
	w := newWorld(t, bulletin.Options{Heartbeat: 50 * time.Millisecond})
	w.app.Server().ReadTimeout = timeout
	w.app.Server().WriteTimeout = timeout
	base := w.serve(t)
	s := openStream(t, base, "")

	opened := time.Now()
	heartbeats := 0
	for time.Since(opened) < 8*timeout {
		select {
		case m, ok := <-s.msgs:
			if !ok {
				t.Fatalf("the stream ended after %v, with a write timeout of %v", time.Since(opened).Round(time.Millisecond), timeout)
			}
			if m.Comment == "heartbeat" {
				heartbeats++
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no heartbeat on an idle stream")
		}
	}
	if heartbeats < 10 {
		t.Fatalf("%d heartbeats in %v at an interval of 50ms", heartbeats, 8*timeout)
	}
	w.kit.Publish(ticketEvent(1))
	if _, item := s.next(t); item["id"] != "tkt_00000001" {
		t.Fatalf("a long-open stream still carries items: %v", item)
	}

	w.svc.Drain()
	for range s.msgs {
	}
	if err := s.err(); err != nil {
		t.Fatalf("shutdown ends a stream cleanly, got %v", err)
	}
}
