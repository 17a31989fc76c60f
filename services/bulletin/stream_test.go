package bulletin_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/httpx"
	ticketsv1 "sharedworld.dev/proto/tickets/v1"
	"sharedworld.dev/services/bulletin"
)

// serve puts the world's router on a real socket as the host does (the
// live stream needs one; a large document leaves by sendfile on it).
func (w *world) serve(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = httpx.Serve(w.app, ln) }()
	t.Cleanup(func() { _ = w.app.ShutdownWithTimeout(time.Second) })
	return "http://" + ln.Addr().String()
}

// sseMessage is one message of the stream: a data message or a comment.
type sseMessage struct {
	ID, Data, Comment string
}

// stream opens the live feed and delivers its messages on a channel.
type stream struct {
	resp *http.Response
	msgs chan sseMessage
	// end is how the body ended (nil: cleanly); set before msgs closes.
	end error
}

// err is how the stream ended, once msgs is closed: nil when the server
// ended the body cleanly.
func (s *stream) err() error {
	if errors.Is(s.end, io.EOF) {
		return nil
	}
	return s.end
}

func openStream(t testing.TB, base, lastEventID string) *stream {
	t.Helper()
	return openStreamQuery(t, base, "", lastEventID)
}

func openStreamQuery(t testing.TB, base, query, lastEventID string) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/world/events"+query, nil)
	req.Header.Set("Accept", "text/event-stream")
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	s := &stream{resp: resp, msgs: make(chan sseMessage, 1000)}
	t.Cleanup(func() { cancel(); resp.Body.Close() })
	if resp.StatusCode != 200 {
		return s
	}
	go func() {
		defer close(s.msgs)
		rd := bufio.NewReader(resp.Body)
		var m sseMessage
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				s.end = err
				return
			}
			line = strings.TrimSuffix(line, "\n")
			switch {
			case line == "":
				if m != (sseMessage{}) {
					s.msgs <- m
				}
				m = sseMessage{}
			case strings.HasPrefix(line, ":"):
				m.Comment = strings.TrimSpace(line[1:])
			case strings.HasPrefix(line, "id: "):
				m.ID = line[4:]
			case strings.HasPrefix(line, "data: "):
				m.Data = line[6:]
			}
		}
	}()
	return s
}

// next returns the next data message, skipping comments.
func (s *stream) next(t testing.TB) (id string, item map[string]any) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case m, ok := <-s.msgs:
			if !ok {
				t.Fatal("stream ended")
			}
			if m.Data == "" {
				continue
			}
			if err := json.Unmarshal([]byte(m.Data), &item); err != nil {
				t.Fatalf("data is not JSON: %q", m.Data)
			}
			return m.ID, item
		case <-deadline:
			t.Fatal("no stream message within 10s")
		}
	}
}

func ticketEvent(i int) events.Event {
	id := fmt.Sprintf("tkt_%08x", i)
	return ev(id, &ticketsv1.TicketFiled{TicketId: id, Category: "bug", Title: fmt.Sprintf("t%d", i), Status: "open", CreatedAt: pb(sec(i)), Version: 1}, sec(i))
}

// TestStreamResumesWithoutGapOrRepeat reads the live feed, drops the
// connection, lets more events happen, and resumes with Last-Event-ID: the
// resumed stream starts exactly after the last item read (CONTRACT §6).
func TestStreamResumesWithoutGapOrRepeat(t *testing.T) {
	w := newWorld(t, bulletin.Options{Heartbeat: 50 * time.Millisecond})
	base := w.serve(t)

	s := openStream(t, base, "")
	if ct := s.resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("content type %q", ct)
	}
	publish := func(from, to int) {
		for i := from; i < to; i++ {
			w.kit.Publish(ticketEvent(i))
		}
	}
	// Events of different tickets travel on different partitions, so the
	// stream's order is the order they were applied in, not necessarily
	// the order they were published in.
	publish(0, 3)
	w.waitHandled(t, 3)
	var ids, got []string
	for range 3 {
		id, item := s.next(t)
		if item["type"] != "ticket" || !strings.HasPrefix(item["line"].(string), "#ticket  ") || id == "" {
			t.Fatalf("live item: %s %v", id, item)
		}
		ids, got = append(ids, id), append(got, item["id"].(string))
	}
	if !sameSet(got, []string{"tkt_00000000", "tkt_00000001", "tkt_00000002"}) {
		t.Fatalf("live items %v", got)
	}
	// A heartbeat keeps the idle stream alive.
	sawHeartbeat := false
	for !sawHeartbeat {
		select {
		case m := <-s.msgs:
			sawHeartbeat = m.Comment == "heartbeat"
		case <-time.After(5 * time.Second):
			t.Fatal("no heartbeat on an idle stream")
		}
	}
	s.resp.Body.Close()

	publish(3, 6)
	w.waitHandled(t, 6)

	// Resume after the second item read: the third one read, then the
	// three published while away — each exactly once.
	r := openStream(t, base, ids[1])
	if _, item := r.next(t); item["id"] != got[2] {
		t.Fatalf("resume did not start right after Last-Event-ID: got %v, want %s", item["id"], got[2])
	}
	var missed []string
	for range 3 {
		_, item := r.next(t)
		missed = append(missed, item["id"].(string))
	}
	if !sameSet(missed, []string{"tkt_00000003", "tkt_00000004", "tkt_00000005"}) {
		t.Fatalf("resumed items %v", missed)
	}
	// Then live items follow, with no repeat in between.
	publish(6, 7)
	if _, item := r.next(t); item["id"] != "tkt_00000006" {
		t.Fatalf("after catching up: got %v, want tkt_00000006", item["id"])
	}
}

// sameSet reports whether got holds exactly the items of want, each once.
func sameSet(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	count := map[string]int{}
	for _, g := range got {
		count[g]++
	}
	for _, w := range want {
		if count[w] != 1 {
			return false
		}
	}
	return true
}

func TestStreamSubscriberLimitAndBadCursor(t *testing.T) {
	w := newWorld(t, bulletin.Options{MaxSubscribers: 2})
	base := w.serve(t)
	openStream(t, base, "")
	openStream(t, base, "")
	full := openStream(t, base, "")
	if full.resp.StatusCode != 503 {
		t.Fatalf("a third subscriber over the limit of 2: status %d", full.resp.StatusCode)
	}
	var body map[string]any
	_ = json.NewDecoder(full.resp.Body).Decode(&body)
	if body["error"] != "unavailable" || body["hint"] == "" {
		t.Fatalf("CONTRACT §1 error body: %v", body)
	}
	bad := openStream(t, base, "garbage")
	if bad.resp.StatusCode != 400 {
		t.Fatalf("CONTRACT §11 unknown cursor in Last-Event-ID: status %d", bad.resp.StatusCode)
	}
}

// TestOldRedeliveryIsNotNews redelivers an event whose feed entry is older
// than the bulletin's 50-entry window: it is found in the store and never
// sent to live clients again (no repeat), while new events still are.
func TestOldRedeliveryIsNotNews(t *testing.T) {
	w := newWorld(t, bulletin.Options{})
	base := w.serve(t)
	var evs []events.Event
	for i := range 55 {
		evs = append(evs, ticketEvent(i))
	}
	w.kit.Publish(evs...)
	w.waitHandled(t, 55)

	s := openStream(t, base, "")
	w.kit.Publish(evs[0]) // tkt_00000000 is the oldest, outside the window
	w.waitHandled(t, 56)
	w.kit.Publish(ticketEvent(100))
	if _, item := s.next(t); item["id"] != "tkt_00000064" {
		t.Fatalf("live clients got %v; the redelivered old entry must not be sent again", item["id"])
	}
	w.waitHandled(t, 57)
	page := w.do(t, http.MethodGet, "/api/world/events?limit=100", nil, nil)
	if n := len(page.Body["events"].([]any)); n != 56 {
		t.Fatalf("the store holds %d feed entries, want 56", n)
	}
}

// TestStreamTypeFilter: the type filter of GET /api/world/events applies to
// the live stream too.
func TestStreamTypeFilter(t *testing.T) {
	w := newWorld(t, bulletin.Options{})
	base := w.serve(t)
	s := openStreamQuery(t, base, "?type=claim", "")
	w.kit.Publish(ticketEvent(1))
	w.waitHandled(t, 1)
	w.kit.Publish(everyEventType()[5]) // plot.claimed plot_x3_y4
	if _, item := s.next(t); item["type"] != "claim" || item["id"] != "plot_x3_y4" {
		t.Fatalf("filtered stream sent %v", item)
	}
}

// After a restart the hub holds nothing of the past: a client resuming
// with the id of an item read before the restart gets the rest from the
// store, then the live items, each once.
func TestStreamResumesFromTheStoreAfterARestart(t *testing.T) {
	w := newWorld(t, bulletin.Options{Heartbeat: 50 * time.Millisecond})
	base := w.serve(t)
	s := openStream(t, base, "")
	for i := range 4 {
		w.kit.Publish(ticketEvent(i))
	}
	w.waitHandled(t, 4)
	var ids, got []string
	for range 4 {
		id, item := s.next(t)
		ids, got = append(ids, id), append(got, item["id"].(string))
	}
	s.resp.Body.Close()
	w.stop()
	_ = w.app.ShutdownWithTimeout(time.Second)

	w.start(t, bulletin.Options{Heartbeat: 50 * time.Millisecond})
	base = w.serve(t)
	r := openStream(t, base, ids[1])
	for _, want := range got[2:] {
		if _, item := r.next(t); item["id"] != want {
			t.Fatalf("resumed from the store: got %v, want %s", item["id"], want)
		}
	}
	w.kit.Publish(ticketEvent(4))
	if _, item := r.next(t); item["id"] != "tkt_00000004" {
		t.Fatalf("after catching up: got %v, want tkt_00000004", item["id"])
	}
}
