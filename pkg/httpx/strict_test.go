package httpx_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/testkit"
)

// strictApp has the shapes the services use: a fixed route beside a
// parameter route of another method, a cursor, an embedded request struct.
func strictApp() *fiber.App {
	a := app()
	a.Get("/things/:id", func(c *fiber.Ctx) error { return httpx.OK(c, 200, fiber.Map{"id": c.Params("id")}) })
	a.Post("/things/claim", func(c *fiber.Ctx) error { return httpx.OK(c, 201, nil) })
	a.Get("/things", func(c *fiber.Ctx) error {
		var pos struct {
			X int `json:"x"`
			Y int `json:"y"`
		}
		if raw := c.Query("cursor"); raw != "" {
			if err := httpx.DecodeCursor(raw, &pos); err != nil {
				return err
			}
		}
		return httpx.OK(c, 200, fiber.Map{"search": c.Query("search")})
	})
	a.Put("/things/:id/permissions", func(c *fiber.Ctx) error {
		var req permissionsRequest
		if err := httpx.Decode(c, &req); err != nil {
			return err
		}
		return httpx.OK(c, 200, nil)
	})
	return a
}

type permissionFields struct {
	AllowedAgents []string `json:"allowed_agents"`
}

type permissionsRequest struct {
	permissionFields
	Nested *permissionFields `json:"permissions"`
}

func TestBadInputIsRefusedWithAHint(t *testing.T) {
	a := strictApp()
	cursor := httpx.EncodeCursor(struct {
		X int `json:"x"`
		Y int `json:"y"`
	}{1, 2})
	cases := []struct {
		name   string
		req    testkit.Request
		status int
		code   string
		says   string // the message or hint must say this
	}{
		{"query not UTF-8", testkit.Request{Method: "GET", Path: "/things?search=%ff"}, 400, "invalid_request", `\"search\"`},
		{"query truncated sequence", testkit.Request{Method: "GET", Path: "/things?search=%c3%28"}, 400, "invalid_request", "UTF-8"},
		{"query surrogate", testkit.Request{Method: "GET", Path: "/things?interest=%ed%a0%80"}, 400, "invalid_request", `\"interest\"`},
		{"query raw byte", testkit.Request{Method: "GET", Path: "/things?search=a\xffb"}, 400, "invalid_request", "UTF-8"},
		{"path not UTF-8", testkit.Request{Method: "GET", Path: "/things/%ff"}, 400, "invalid_request", "path"},
		{"made-up cursor {}", testkit.Request{Method: "GET", Path: "/things?cursor=e30"}, 400, "invalid_request", "cursor"},
		{"cursor with another field", testkit.Request{Method: "GET", Path: "/things?cursor=" + httpx.EncodeCursor(map[string]int{"x": 1, "y": 2, "z": 3})}, 400, "invalid_request", "cursor"},
		{"cursor missing a field", testkit.Request{Method: "GET", Path: "/things?cursor=" + httpx.EncodeCursor(map[string]int{"x": 1})}, 400, "invalid_request", "cursor"},
		{"fixed route, other method", testkit.Request{Method: "GET", Path: "/things/claim"}, 405, "method_not_allowed", "POST"},
		{"param route, other method", testkit.Request{Method: "DELETE", Path: "/things/abc/permissions"}, 405, "method_not_allowed", "PUT"},
		{"unknown method", testkit.Request{Method: "BREW", Path: "/things"}, 405, "method_not_allowed", "BREW"},
		{"embedded struct field", testkit.Request{Method: "PUT", Path: "/things/a/permissions", Body: `{"allowed_agents":"x"}`}, 400, "invalid_request", `\"allowed_agents\"`},
		{"nested field", testkit.Request{Method: "PUT", Path: "/things/a/permissions", Body: `{"permissions":{"allowed_agents":[1]}}`}, 400, "invalid_request", `\"permissions.allowed_agents`},
		{"body not UTF-8", testkit.Request{Method: "POST", Path: "/echo", Body: "{\"name\":\"a\xffb\"}"}, 400, "invalid_request", "UTF-8"},
		{"lone high surrogate", testkit.Request{Method: "POST", Path: "/echo", Body: `{"name":"\ud800x"}`}, 400, "invalid_request", "surrogate"},
		{"lone low surrogate", testkit.Request{Method: "POST", Path: "/echo", Body: `{"name":"\udc00"}`}, 400, "invalid_request", "surrogate"},
		{"reversed pair", testkit.Request{Method: "POST", Path: "/echo", Body: `{"name":"\ude00\ud83d"}`}, 400, "invalid_request", "surrogate"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := testkit.Do(t, a, c.req)
			r.ExpectError(t, c.status, c.code)
			if !strings.Contains(string(r.Raw), c.says) {
				t.Fatalf("the answer should say %s: %s", c.says, r.Raw)
			}
			for _, leak := range []string{"permissionFields", "Go struct", "json:"} {
				if strings.Contains(string(r.Raw), leak) {
					t.Fatalf("the answer shows Go internals (%s): %s", leak, r.Raw)
				}
			}
			if c.status == 405 && r.Header["Allow"] == "" && c.name != "unknown method" {
				t.Fatalf("a 405 names the methods in Allow: %v", r.Header)
			}
		})
	}
	if r := testkit.Do(t, a, testkit.Request{Method: "GET", Path: "/things/claim"}); r.Header["Allow"] != "POST" {
		t.Fatalf("Allow for the fixed route: %q", r.Header["Allow"])
	}
	for _, ok := range []string{"/things?search=%C3%A9t%C3%A9", "/things?search=%F0%9F%98%80+smile", "/things?search=%zz%", "/things?cursor=" + cursor, "/things/%E2%82%AC"} {
		if r := testkit.Do(t, a, testkit.Request{Method: "GET", Path: ok}); r.Status != 200 {
			t.Errorf("GET %s: %d %s", ok, r.Status, r.Raw)
		}
	}
	if r := testkit.Do(t, a, testkit.Request{Method: "POST", Path: "/echo", Body: `{"name":"\ud83d\ude00 \\ud800 \ufffd"}`}); r.Status != 200 || r.Body["name"] != "😀 \\ud800 \ufffd" {
		t.Fatalf("a surrogate pair, an escaped backslash and U+FFFD itself are text: %d %s", r.Status, r.Raw)
	}
	for _, huge := range []string{"99999999999999999999", "9223372036854775808", "100000000000000000000000000000"} {
		if r := testkit.Do(t, a, testkit.Request{Method: "GET", Path: "/page?limit=" + huge}); r.Status != 200 || r.Body["limit"] != float64(100) {
			t.Errorf("limit=%s must be capped at 100 like any large limit: %d %s", huge, r.Status, r.Raw)
		}
	}
	testkit.Do(t, a, testkit.Request{Method: "GET", Path: "/page?limit=-99999999999999999999"}).ExpectError(t, 400, "invalid_request")
}

// serve runs the app on a real listener, as the host does.
func serve(t *testing.T, a *fiber.App) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = httpx.Serve(a, ln) }()
	t.Cleanup(func() { _ = a.Shutdown() })
	return ln.Addr().String()
}

// rawRequest writes bytes as they are and reads one response, which must
// carry the JSON error body.
func rawRequest(t *testing.T, addr, req string) (*http.Response, map[string]any) {
	t.Helper()
	resp, raw := testkit.RawExchange(t, addr, req)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("not the JSON error body: %d %s", resp.StatusCode, raw)
	}
	return resp, body
}

func TestAmbiguousBodyLengthIsRefused(t *testing.T) {
	addr := serve(t, strictApp())
	for _, req := range []string{
		"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\n{}{}{}{",
		"POST /echo HTTP/1.1\r\nHost: x\r\ncontent-length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
		"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
	} {
		resp, body := rawRequest(t, addr, req)
		if resp.StatusCode != 400 || body["error"] != "invalid_request" || body["hint"] == "" || !resp.Close {
			t.Errorf("%q: want 400 invalid_request and the connection closed, got %d %v (close %v)", req, resp.StatusCode, body, resp.Close)
		}
	}
	resp, body := rawRequest(t, addr, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}")
	if resp.StatusCode != 200 {
		t.Errorf("a repeated equal Content-Length is one length: %d %v", resp.StatusCode, body)
	}
	resp, body = rawRequest(t, addr, "GET /page?q="+strings.Repeat("a", 20000)+" HTTP/1.1\r\nHost: x\r\n\r\n")
	if resp.StatusCode != 400 || !strings.Contains(body["hint"].(string), "URL") {
		t.Errorf("a long URL: %d %v", resp.StatusCode, body)
	}
}

// A body over the limit reaches Go's net/http client as the 413 JSON, not
// as "broken pipe": the server answers early and drains the upload.
func TestOverLimitBodyReachesGoClientAs413(t *testing.T) {
	addr := serve(t, strictApp())
	// Without the drain the client loses the answer on some attempts only
	// (the reset races the read): twenty attempts of each size.
	var sizes []int
	for range 20 {
		sizes = append(sizes, 12<<20, 3<<20)
	}
	for _, size := range sizes {
		resp, err := http.Post("http://"+addr+"/big", "application/json", bytes.NewReader(bytes.Repeat([]byte("x"), size)))
		if err != nil {
			t.Fatalf("%d bytes: the client must read the 413, got %v", size, err)
		}
		var body map[string]any
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		_ = json.Unmarshal(raw, &body)
		if resp.StatusCode != 413 || body["error"] != "payload_too_large" || !strings.Contains(body["message"].(string), "2097152") {
			t.Fatalf("%d bytes: want 413 payload_too_large naming the route's limit, got %d %s", size, resp.StatusCode, raw)
		}
	}
}
