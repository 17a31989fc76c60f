package httpx_test

import (
	"bytes"
	"log/slog"
	"sync/atomic"
	"testing"

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
