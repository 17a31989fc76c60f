package world_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"sharedworld.dev/hack/world"
	"sharedworld.dev/pkg/testkit"
)

type client struct {
	t    *testing.T
	base string
}

func (c client) do(method, path string, body any, headers map[string]string) (int, map[string]any) {
	c.t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, c.base+path, r)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := testkit.ContractClient(c.t).Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(raw, &out)
	return resp.StatusCode, out
}

// raw sends a body as given (possibly malformed) and decodes any JSON answer.
func (c client) raw(method, path, body string, headers map[string]string) (int, map[string]any) {
	c.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, c.base+path, r)
	if err != nil {
		return 400, map[string]any{"ok": false, "hint": "unsendable"}
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := testkit.ContractClient(c.t).Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &out); err != nil && resp.StatusCode >= 400 {
		return resp.StatusCode, map[string]any{"raw": string(raw)}
	}
	return resp.StatusCode, out
}

func devAgent(t *testing.T, c client, name string) map[string]string {
	t.Helper()
	status, body := c.do("POST", "/dev/idp/register", map[string]any{"agent_name": name}, nil)
	if status != 201 {
		t.Fatalf("dev register: %d %v", status, body)
	}
	cert, _ := json.Marshal(body["certificate"])
	return map[string]string{"X-Agent-Id": body["agent_id"].(string), "X-Agent-Certificate": string(cert)}
}

// The world keeps its state across a graceful restart on the same data
// directory, and the development provider's certificates stay valid.
func TestRestartKeepsTheWorld(t *testing.T) {
	cfg := world.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), AmbassadorToken: "restart-token-0123456789"}
	w := start(t, cfg)
	c := client{t, w.URL}
	ada := devAgent(t, c, "Ada")
	if s, b := c.do("POST", "/api/world/register", map[string]any{"name": "Ada"}, ada); s != 201 {
		t.Fatalf("register: %d %v", s, b)
	}
	if s, b := c.do("POST", "/api/world/tickets", map[string]any{"category": "bug", "title": "Lamp", "description": "The lamp flickers."}, ada); s != 201 {
		t.Fatalf("file ticket: %d %v", s, b)
	}
	// The bulletin has seen both writes before the world stops.
	deadline := time.Now().Add(2 * time.Second)
	for {
		_, doc := c.do("GET", "/api/world/bulletin", nil, nil)
		if fb, _ := doc["feedback"].(map[string]any); fb != nil && fb["open_tickets"] == float64(1) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the ticket never reached the bulletin")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := w.Stop(20 * time.Second); err != nil {
		t.Fatalf("stop: %v", err)
	}

	w = start(t, cfg)
	defer w.Stop(20 * time.Second)
	c = client{t, w.URL}
	// Right after the restart, before any new event, the bulletin is whole.
	_, doc := c.do("GET", "/api/world/bulletin", nil, nil)
	if doc["world"].(map[string]any)["population"] != float64(1) || doc["feedback"].(map[string]any)["open_tickets"] != float64(1) {
		t.Fatalf("after restart the bulletin must be served from its stored projections: %v %v", doc["world"], doc["feedback"])
	}
	s, b := c.do("GET", "/api/world/whoami", nil, ada)
	if s != 200 || b["registered"] != true {
		t.Fatalf("after restart the citizen and her certificate must still be valid: %d %v", s, b)
	}
	s, b = c.do("GET", "/api/world/tickets", nil, nil)
	tickets, _ := b["tickets"].([]any)
	if s != 200 || len(tickets) != 1 || !strings.Contains(tickets[0].(map[string]any)["title"].(string), "Lamp") {
		t.Fatalf("after restart the ticket must still be listed: %d %v", s, b)
	}
}

func TestDevClock(t *testing.T) {
	w := start(t, world.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), AmbassadorToken: "clock-token-0123456789", DevClock: true})
	defer w.Stop(20 * time.Second)
	c := client{t, w.URL}
	before := w.Clock.Now().Truncate(time.Millisecond) // responses carry milliseconds
	if s, _ := c.do("POST", "/api/admin/clock", map[string]any{"advance": "72h"}, nil); s != 401 {
		t.Fatalf("the clock needs the ambassador token, got %d", s)
	}
	admin := map[string]string{"Authorization": "Bearer clock-token-0123456789"}
	if s, b := c.do("POST", "/api/admin/clock", map[string]any{"advance": "soon"}, admin); s != 400 || b["error"] != "invalid_request" {
		t.Fatalf("a bad duration is invalid_request: %d %v", s, b)
	}
	s, b := c.do("POST", "/api/admin/clock", map[string]any{"advance": "72h"}, admin)
	if s != 200 {
		t.Fatalf("advance: %d %v", s, b)
	}
	now, err := time.Parse(time.RFC3339Nano, b["now"].(string))
	if err != nil || now.Sub(before) < 72*time.Hour {
		t.Fatalf("the world clock must be 72h ahead: %v (%v)", b["now"], err)
	}
	ada := devAgent(t, c, "Ada")
	_, b = c.do("POST", "/api/world/register", nil, ada)
	reg, _ := time.Parse(time.RFC3339Nano, b["citizen"].(map[string]any)["registered_at"].(string))
	if time.Until(reg) < 71*time.Hour {
		t.Fatalf("services must use the shared development clock: registered_at %v", reg)
	}
	// last_seen_at follows the world's clock like every other time.
	_, b = c.do("GET", "/api/world/profile", nil, ada)
	seen, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(b["profile"].(map[string]any)["last_seen_at"]))
	if time.Until(seen) < 71*time.Hour {
		t.Fatalf("last_seen_at must follow the development clock: %v", b["profile"])
	}
}

// The clock is bounded (the largest duration once wrapped
// the world to 1746) and a restart keeps the world's time.
func TestDevClockIsBoundedAndKept(t *testing.T) {
	cfg := world.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), AmbassadorToken: "clock-token-0123456789", DevClock: true}
	w := start(t, cfg)
	c := client{t, w.URL}
	admin := map[string]string{"Authorization": "Bearer clock-token-0123456789"}
	for _, far := range []string{"9223372036854775807ns", "87601h"} {
		s, b := c.do("POST", "/api/admin/clock", map[string]any{"advance": far}, admin)
		if s != 400 || b["error"] != "invalid_request" || !strings.Contains(fmt.Sprint(b["hint"]), "10 years") {
			t.Fatalf("advance %s: want 400 with a hint naming the bound, got %d %v", far, s, b)
		}
	}
	if s, b := c.do("POST", "/api/admin/clock", map[string]any{"advance": "87000h"}, admin); s != 200 {
		t.Fatalf("advance within the bound: %d %v", s, b)
	}
	if s, b := c.do("POST", "/api/admin/clock", map[string]any{"advance": "1000h"}, admin); s != 400 {
		t.Fatalf("the bound is on the total offset: %d %v", s, b)
	}
	for _, body := range []any{map[string]any{}, map[string]any{"advance": nil}, map[string]any{"advanse": "1h"}} {
		if s, b := c.do("POST", "/api/admin/clock", body, admin); s != 400 || b["error"] != "invalid_request" || b["hint"] == nil {
			t.Fatalf("§10 a clock request without advance %v: want 400 invalid_request with a hint, got %d %v", body, s, b)
		}
	}
	s, b := c.do("POST", "/api/admin/clock", map[string]any{"advance": "0s"}, admin)
	ahead, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(b["now"]))
	if s != 200 || time.Until(ahead) < 86999*time.Hour {
		t.Fatalf("now: %d %v", s, b)
	}
	if err := w.Stop(20 * time.Second); err != nil {
		t.Fatal(err)
	}

	w = start(t, cfg)
	defer w.Stop(20 * time.Second)
	if got := w.Clock.Now(); got.Before(ahead) {
		t.Fatalf("a restart set the world back from %v to %v", ahead, got)
	}
}

// A write accepted by one service shows up in the bulletin and its feed
// within 1 s (CONTRACT §6), across the real event pipeline of the runner.
func TestWritesReachTheBulletinWithinOneSecond(t *testing.T) {
	w := start(t, world.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), AmbassadorToken: "bulletin-token-0123456789"})
	defer w.Stop(20 * time.Second)
	c := client{t, w.URL}
	ada := devAgent(t, c, "Ada")

	type check struct {
		name  string
		write func()
		seen  func(doc map[string]any) bool
	}
	hasLine := func(doc map[string]any, prefix, contains string) bool {
		for _, f := range doc["feed"].([]any) {
			line := f.(map[string]any)["line"].(string)
			if strings.HasPrefix(line, prefix) && strings.Contains(line, contains) {
				return true
			}
		}
		return false
	}
	checks := []check{
		{"registration", func() { c.do("POST", "/api/world/register", map[string]any{"name": "Ada"}, ada) },
			func(doc map[string]any) bool { return doc["world"].(map[string]any)["population"] == float64(1) }},
		{"claim", func() { c.do("POST", "/api/world/plots/claim", map[string]any{"x": 3, "y": 4}, ada) },
			func(doc map[string]any) bool { return hasLine(doc, "#claim  ", "plot_x3_y4") }},
		{"garden", func() {
			c.do("POST", "/api/world/storage/write", map[string]any{"plot_id": "plot_0_0", "path": "/garden/ada/poem.md", "content": "aGVsbG8="}, ada)
		}, func(doc map[string]any) bool { return hasLine(doc, "#garden  ", "Ada  planted  poem.md") }},
		{"ticket", func() {
			c.do("POST", "/api/world/tickets", map[string]any{"category": "bug", "title": "Lamp flickers", "description": "Yes."}, ada)
		}, func(doc map[string]any) bool { return hasLine(doc, "#ticket  ", "Lamp flickers") }},
	}
	for _, ch := range checks {
		start := time.Now()
		ch.write()
		for {
			_, doc := c.do("GET", "/api/world/bulletin", nil, nil)
			if ch.seen(doc) {
				t.Logf("%s visible after %v", ch.name, time.Since(start))
				break
			}
			if time.Since(start) > time.Second {
				t.Fatalf("%s not in the bulletin within 1 s: %v", ch.name, doc["feed"])
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}
