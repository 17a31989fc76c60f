package httpx_test

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"go.mongodb.org/mongo-driver/mongo"

	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/pkg/testkit"
)

func app() *fiber.App {
	a := httpx.NewApp(httpx.Options{Service: "httpxtest", BodyLimits: map[string]int{"POST /big": 2 << 20}})
	a.Get("/panic", func(c *fiber.Ctx) error { panic("secret detail") })
	a.Post("/echo", func(c *fiber.Ctx) error {
		var req struct {
			Name  *string `json:"name"`
			Count int     `json:"count"`
		}
		if err := httpx.Decode(c, &req); err != nil {
			return err
		}
		return httpx.OK(c, 200, fiber.Map{"name": req.Name, "count": req.Count})
	})
	a.Post("/big", func(c *fiber.Ctx) error { return httpx.OK(c, 200, fiber.Map{"size": len(c.Body())}) })
	a.Get("/down", func(c *fiber.Ctx) error {
		return fmt.Errorf("read plot: %w", mongo.ErrClientDisconnected)
	})
	a.Get("/limited", func(c *fiber.Ctx) error {
		return problem.RateLimited("Too many.", "Wait.", 90*time.Second+time.Millisecond)
	})
	a.Get("/page", func(c *fiber.Ctx) error {
		n, err := httpx.Limit(c)
		if err != nil {
			return err
		}
		return httpx.OK(c, 200, fiber.Map{"limit": n})
	})
	return a
}

func TestErrorModel(t *testing.T) {
	a := app()
	r := testkit.Do(t, a, testkit.Request{Method: "GET", Path: "/panic"})
	r.ExpectError(t, 500, "INTERNAL_ERROR")
	if strings.Contains(string(r.Raw), "secret") || strings.Contains(string(r.Raw), "goroutine") {
		t.Fatalf("a panic must not leak details: %s", r.Raw)
	}
	if r.Header["Content-Type"] != httpx.ContentTypeJSON || r.Header["X-Request-Id"] == "" {
		t.Fatalf("headers: %v", r.Header)
	}
	cases := []struct {
		name   string
		req    testkit.Request
		status int
		code   string
	}{
		{"§11 unknown path", testkit.Request{Method: "GET", Path: "/nowhere"}, 404, "not_found"},
		{"§11 wrong method", testkit.Request{Method: "PUT", Path: "/echo"}, 405, "method_not_allowed"},
		{"§1 malformed JSON", testkit.Request{Method: "POST", Path: "/echo", Body: `{"name":`}, 400, "invalid_request"},
		{"§1 wrong type", testkit.Request{Method: "POST", Path: "/echo", Body: `{"count":"3"}`}, 400, "invalid_request"},
		{"§1 object in a string field", testkit.Request{Method: "POST", Path: "/echo", Body: `{"name":{"$ne":null}}`}, 400, "invalid_request"},
		{"§1 trailing data", testkit.Request{Method: "POST", Path: "/echo", Body: `{"name":"a"} {}`}, 400, "invalid_request"},
		{"§1 body over 1 MiB", testkit.Request{Method: "POST", Path: "/echo", Body: `{"name":"` + strings.Repeat("x", 1<<20) + `"}`}, 413, "payload_too_large"},
		{"§11 route limit 2 MiB", testkit.Request{Method: "POST", Path: "/big", Body: strings.Repeat("x", 2<<20+1)}, 413, "payload_too_large"},
		{"§11 non-numeric limit", testkit.Request{Method: "GET", Path: "/page?limit=ten"}, 400, "invalid_request"},
		{"§1 rate limited", testkit.Request{Method: "GET", Path: "/limited"}, 429, "rate_limited"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			testkit.Do(t, a, c.req).ExpectError(t, c.status, c.code)
		})
	}
	down := testkit.Do(t, a, testkit.Request{Method: "GET", Path: "/down"})
	down.ExpectError(t, 503, "unavailable")
	if down.Header["Retry-After"] != "5" {
		t.Fatalf("a 503 for an unreachable dependency must say when to retry: Retry-After %q", down.Header["Retry-After"])
	}
	if r := testkit.Do(t, a, testkit.Request{Method: "GET", Path: "/limited"}); r.Header["Retry-After"] != "91" {
		t.Fatalf("Retry-After must round up to whole seconds: %q", r.Header["Retry-After"])
	}
	if r := testkit.Do(t, a, testkit.Request{Method: "POST", Path: "/big", Body: strings.Repeat("x", 1<<20+10)}); r.Status != 200 {
		t.Fatalf("a route with a larger limit must accept 1 MiB + 10: %d", r.Status)
	}
	if r := testkit.Do(t, a, testkit.Request{Method: "GET", Path: "/page?limit=500"}); r.Body["limit"] != float64(100) {
		t.Fatalf("limit above 100 must be capped: %s", r.Raw)
	}
	r = testkit.Do(t, a, testkit.Request{Method: "GET", Path: "/page", Headers: map[string]string{"X-Request-Id": "abc123"}})
	if r.Header["X-Request-Id"] != "abc123" {
		t.Fatal("a caller's request id must be echoed")
	}
}

func TestCursorRoundTrip(t *testing.T) {
	type pos struct {
		At string `json:"at"`
		ID string `json:"id"`
	}
	raw := httpx.EncodeCursor(pos{"2026-11-22T00:00:00.000Z", "tkt_0000abcd"})
	var back pos
	if err := httpx.DecodeCursor(raw, &back); err != nil || back.ID != "tkt_0000abcd" {
		t.Fatalf("round trip: %v %+v", err, back)
	}
	for _, bad := range []string{"!!!", "bm90IGpzb24"} {
		if err := httpx.DecodeCursor(bad, &back); !problem.IsKind(err, problem.KindInvalid) {
			t.Errorf("cursor %q must be invalid_request, got %v", bad, err)
		}
	}
}

// A connection that never sends a request is closed at the read timeout
// without an answer: a client about to use it must not read an error it
// did not ask for.
func TestUnusedConnectionClosesWithoutAnAnswer(t *testing.T) {
	a := httpx.NewApp(httpx.Options{Service: "idletest", ReadTimeout: 200 * time.Millisecond})
	a.Get("/ok", func(c *fiber.Ctx) error { return httpx.OK(c, 200, nil) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = a.Listener(ln) }()
	t.Cleanup(func() { _ = a.Shutdown() })
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	got, err := io.ReadAll(conn)
	if len(got) != 0 {
		t.Fatalf("an unused connection got an answer: %q", got)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("the server kept the unused connection open past its read timeout")
	}
}
