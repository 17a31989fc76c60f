//go:build !cluster

// The local runner only: these send raw bytes at its front door (duplicate
// Content-Length, long URLs, an oversized backup through a proxy), which in
// the chart's world (-tags cluster) the Ingress controller answers itself.

package world_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"sharedworld.dev/hack/attack"
	"sharedworld.dev/hack/world"
	"sharedworld.dev/pkg/testkit"
)

// Over every documented route of the runner: text that
// is not UTF-8 (query, path, JSON strings) is 400, never replaced; a
// made-up cursor is 400; a huge limit is capped; a method a path does not
// serve is 405 with Allow; an unknown method gets the JSON error body.
func TestEveryRouteIsStrictAboutBadInput(t *testing.T) {
	w := start(t, world.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), AmbassadorToken: "strict-token-0123456789", DevClock: true})
	defer w.Stop(20 * time.Second)
	c := client{t, w.URL}
	ada := devAgent(t, c, "Ada")
	c.do("POST", "/api/world/register", map[string]any{"name": "Ada"}, ada)
	admin := map[string]string{"Authorization": "Bearer strict-token-0123456789"}
	creds := func(p string) map[string]string {
		if strings.HasPrefix(p, "/api/admin/") {
			return admin
		}
		return ada
	}
	errorBody := func(what string, status int, out map[string]any) {
		t.Helper()
		if out["ok"] != false || out["hint"] == nil || out["hint"] == "" || out["error"] == nil {
			t.Errorf("%s: %d without the contract's error body: %v", what, status, out)
		}
	}

	doc, err := attack.ReadDocument(http.DefaultClient, w.URL)
	if err != nil {
		t.Fatal(err)
	}
	ops := doc.Operations
	served := attack.ByPath(ops)
	checked := 0
	for _, op := range ops {
		p := attack.Fill(op.Path, "plot_0_0")
		for _, q := range []string{"search=%ff", "interest=%c3%28", "q=%ed%a0%80", "%ff=1"} {
			status, out := c.raw(op.Method, p+"?"+q, "", creds(op.Path))
			checked++
			if status != 400 || out["error"] != "invalid_request" || !strings.Contains(fmt.Sprint(out["message"]), "UTF-8") {
				t.Errorf("%s %s?%s: want 400 naming UTF-8, got %d %v", op.Method, op.Path, q, status, out)
			}
		}
		if strings.Contains(op.Path, "{") {
			status, out := c.raw(op.Method, attack.Fill(op.Path, "%ff"), "", creds(op.Path))
			checked++
			if status != 400 || !strings.Contains(fmt.Sprint(out["message"]), "path") {
				t.Errorf("%s %s with a path parameter %%ff: want 400, got %d %v", op.Method, op.Path, status, out)
			}
		}
		if op.Body {
			for _, body := range []string{"{\"name\":\"a\xffb\",\"title\":\"a\xffb\",\"content\":\"a\xffb\"}", `{"name":"\ud800","title":"\udfff","path":"\ud800"}`} {
				status, out := c.raw(op.Method, p, body, creds(op.Path))
				checked++
				if status < 400 || status >= 500 {
					t.Errorf("%s %s with text that is not UTF-8: %d %v (accepted or 5xx)", op.Method, op.Path, status, out)
				}
				errorBody(op.Method+" "+op.Path, status, out)
			}
		}
		if op.Takes("Limit") {
			status, out := c.raw(op.Method, p+"?limit=99999999999999999999", "", creds(op.Path))
			checked++
			if status >= 500 || strings.Contains(fmt.Sprint(out["message"]), "limit") {
				t.Errorf("%s %s?limit=99999999999999999999 must be capped like any large limit: %d %v", op.Method, op.Path, status, out)
			}
		}
		if op.Takes("Cursor") {
			for _, cur := range []string{"e30", "eyJ4IjoxfQ", "bnVsbA"} { // {}, {"x":1}, null
				status, out := c.raw(op.Method, p+"?cursor="+cur, "", creds(op.Path))
				checked++
				if status != 400 || out["error"] != "invalid_request" {
					t.Errorf("%s %s?cursor=%s: a made-up cursor is 400, got %d %v", op.Method, op.Path, cur, status, out)
				}
			}
		}
	}
	for p, methods := range served {
		for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
			if slices.Contains(methods, m) {
				continue
			}
			req, _ := http.NewRequest(m, w.URL+attack.Fill(p, "x1"), nil)
			resp, err := testkit.ContractClient(t).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var out map[string]any
			_ = json.NewDecoder(resp.Body).Decode(&out)
			resp.Body.Close()
			checked++
			allow := resp.Header.Get("Allow")
			if resp.StatusCode != 405 || out["error"] != "method_not_allowed" {
				t.Errorf("%s %s: the path serves %v, want 405, got %d %v", m, p, methods, resp.StatusCode, out)
				continue
			}
			for _, want := range methods {
				if !strings.Contains(allow, want) {
					t.Errorf("%s %s: Allow %q lacks %s", m, p, allow, want)
				}
			}
		}
	}
	// A fixed route of one method beside a parameter route of another.
	req, _ := http.NewRequest("GET", w.URL+"/api/world/plots/claim", nil)
	resp, err := testkit.ContractClient(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "POST" {
		t.Errorf("GET /api/world/plots/claim: want 405 with Allow: POST, got %d %q", resp.StatusCode, resp.Header.Get("Allow"))
	}
	status, out := c.raw("BREW", "/api/world/plots", "", nil)
	if status != 405 || out["error"] != "method_not_allowed" {
		t.Errorf("an unknown method: want the JSON 405, got %d %v", status, out)
	}
	t.Logf("%d requests over %d documented operations", checked, len(ops))
	if len(ops) < 50 {
		t.Fatalf("only %d documented operations", len(ops))
	}

	// Framing and size, once through the runner's own listener.
	addr := strings.TrimPrefix(w.URL, "http://")
	resp, body := rawExchange(t, addr, "POST /api/world/tickets HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\n{}{}{}{")
	if resp.StatusCode != 400 || body["error"] != "invalid_request" || !resp.Close {
		t.Errorf("two Content-Length headers: %d %v", resp.StatusCode, body)
	}
	resp, body = rawExchange(t, addr, "GET /api/world/plots?x="+strings.Repeat("a", 20000)+" HTTP/1.1\r\nHost: x\r\n\r\n")
	if resp.StatusCode != 400 || !strings.Contains(fmt.Sprint(body["hint"]), "URL") {
		t.Errorf("a long URL gets a hint about the URL: %d %v", resp.StatusCode, body)
	}
}

func rawExchange(t *testing.T, addr, req string) (*http.Response, map[string]any) {
	t.Helper()
	resp, raw := testkit.RawExchange(t, addr, req)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return resp, out
}

// A 12 MB backup from Go's net/http client reads the 413
// JSON through the runner's real listener, not "broken pipe".
func TestOversizedBackupReachesTheClientAs413(t *testing.T) {
	w := start(t, world.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), AmbassadorToken: "big-token-0123456789"})
	defer w.Stop(20 * time.Second)
	c := client{t, w.URL}
	ada := devAgent(t, c, "Ada")
	c.do("POST", "/api/world/register", map[string]any{"name": "Ada"}, ada)
	body := `{"encryption_key":"k","content":"` + strings.Repeat("A", 12<<20) + `"}`
	for i := range 10 {
		status, out := c.raw("POST", "/api/world/continuity/backup", body, ada)
		if status != 413 || out["error"] != "payload_too_large" {
			t.Fatalf("attempt %d: want the 413 JSON, got %d %v", i, status, out)
		}
	}
}
