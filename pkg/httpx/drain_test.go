package httpx_test

import (
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/testkit"
)

const echoHi = "POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 2\r\n\r\nhi"

// Once an app drains, every answer carries Connection: close and ends its
// connection, whoever writes it: the front door (a document, a 304) or the
// full server (a connection handed over before the drain began). A new
// connection is still served.
func TestDrainClosesEachConnectionAfterItsAnswer(t *testing.T) {
	var current atomic.Pointer[httpx.Document]
	current.Store(httpx.NewDocument(`"v1"`, "public, max-age=5", []byte(`{"v":1}`), gzipped(t, `{"v":1}`)))
	app, addr := frontApp(t, "draintest", slog.New(slog.NewJSONHandler(io.Discard, nil)), &current, httpx.Options{})
	reader, poller, writer := testkit.Dial(t, addr), testkit.Dial(t, addr), testkit.Dial(t, addr)
	reader.Send(docGET())
	poller.Send(docGET())
	writer.Send(echoHi)
	for name, c := range map[string]*testkit.Conn{"reader": reader, "poller": poller} {
		if resp, _ := c.Read("GET"); resp.StatusCode != 200 || resp.Close {
			t.Fatalf("%s before the drain: %d close=%v", name, resp.StatusCode, resp.Close)
		}
	}
	if resp, _ := writer.Read("POST"); resp.StatusCode != 200 || resp.Close {
		t.Fatalf("writer before the drain: %d close=%v", resp.StatusCode, resp.Close)
	}
	if httpx.Draining(app) {
		t.Fatal("an app drains only once told to")
	}

	httpx.Drain(app)
	if !httpx.Draining(app) {
		t.Fatal("Draining after Drain")
	}
	late := testkit.Dial(t, addr)
	cases := []struct {
		name, req, method string
		c                 *testkit.Conn
		status            int
		body              string
	}{
		{"front door document", docGET(), "GET", reader, 200, `{"v":1}`},
		{"front door 304", docGET(`If-None-Match: "v1"`), "GET", poller, 304, ""},
		{"full server", echoHi, "POST", writer, 200, "hi"},
		{"a connection opened during the drain", docGET(), "GET", late, 200, `{"v":1}`},
	}
	for _, cs := range cases {
		cs.c.Send(cs.req)
		resp, body := cs.c.Read(cs.method)
		if resp.StatusCode != cs.status || string(body) != cs.body || !resp.Close {
			t.Errorf("%s while draining: %d %q close=%v; want %d %q with Connection: close", cs.name, resp.StatusCode, body, resp.Close, cs.status, cs.body)
		}
		if !cs.c.Closed(5 * time.Second) {
			t.Errorf("%s: the connection must close after its answer", cs.name)
		}
	}
}
