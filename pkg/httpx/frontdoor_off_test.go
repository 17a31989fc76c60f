package httpx_test

import (
	"bytes"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/testkit"
)

// With the front door off (WORLD_FRONT_DOOR=off) the full server answers
// document readers as the front door does: both encodings and 304, counted
// under the route, request after request on one connection.
func TestDocumentWithoutTheFrontDoor(t *testing.T) {
	var current atomic.Pointer[httpx.Document]
	current.Store(httpx.NewDocument(`"v1"`, "public, max-age=5", []byte(`{"v":1}`), gzipped(t, `{"v":1}`)))
	_, addr := frontApp(t, "frontoff", slog.New(slog.DiscardHandler), &current, httpx.Options{NoFrontDoor: true})
	c := testkit.Dial(t, addr)
	c.Send(docGET())
	if resp, body := c.Read("GET"); resp.StatusCode != 200 || string(body) != `{"v":1}` || resp.Header.Get("Etag") != `"v1"` || resp.Header.Get("X-Served-By") != "" {
		t.Fatalf("identity: %d %s %v", resp.StatusCode, body, resp.Header)
	}
	c.Send(docGET("Accept-Encoding: gzip"))
	if resp, body := c.Read("GET"); resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "gzip" || !bytes.Equal(body, gzipped(t, `{"v":1}`)) {
		t.Fatalf("gzip: %d %v", resp.StatusCode, resp.Header)
	}
	c.Send(docGET(`If-None-Match: "v1"`))
	if resp, _ := c.Read("GET"); resp.StatusCode != 304 {
		t.Fatalf("a matching tag: %d", resp.StatusCode)
	}
	if n := requests("frontoff", "GET", "/doc", "200"); n != 2 {
		t.Fatalf("200s counted %v times, want 2", n)
	}
}

// Without a front door, Shutdown still closes a connection that never
// sent a byte (a client's spare) at once, instead of waiting for it until
// the read timeout (30 s, beyond the stop's 10).
func TestShutdownClosesUnusedConnectionsWithoutTheFrontDoor(t *testing.T) {
	a := httpx.NewApp(httpx.Options{Service: "spare", Logger: slog.New(slog.DiscardHandler)})
	a.Get("/ping", func(c *fiber.Ctx) error { return c.SendString("pong") })
	addr := serve(t, a)
	// The server accepts in order: once a later connection is answered,
	// the spare opened before it was taken.
	spare := testkit.Dial(t, addr)
	used := testkit.Dial(t, addr)
	used.Send("GET /ping HTTP/1.1\r\nHost: test\r\n\r\n")
	if resp, body := used.Read("GET"); resp.StatusCode != 200 || string(body) != "pong" {
		t.Fatalf("ping: %d %s", resp.StatusCode, body)
	}
	if err := httpx.Shutdown(a, 10*time.Second); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if !spare.Closed(5 * time.Second) {
		t.Fatal("a connection that never sent a byte must close with the stop")
	}
	if !used.Closed(5 * time.Second) {
		t.Fatal("an idle connection must close with the stop")
	}
}
