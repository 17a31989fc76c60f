package httpx_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/testkit"
)

func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := io.WriteString(w, s); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// frontApp serves GET /doc from *current (nil: not there yet, the route
// answers 503) and POST /echo, on a real listener as the host does.
func frontApp(t *testing.T, service string, log *slog.Logger, current *atomic.Pointer[httpx.Document], o httpx.Options) (*fiber.App, string) {
	t.Helper()
	o.Service, o.Logger = service, log
	a := httpx.NewApp(o)
	a.Get("/doc", func(c *fiber.Ctx) error {
		if d := current.Load(); d != nil {
			c.Set("X-Served-By", "router")
			httpx.ServeDocument(c.Context(), d)
			return nil
		}
		return c.Status(503).JSON(fiber.Map{"ok": false, "error": "UNAVAILABLE"})
	})
	a.Post("/echo", func(c *fiber.Ctx) error { return c.Send(c.Body()) })
	httpx.DocumentGET(a, "/doc", current.Load)
	return a, serve(t, a)
}

func docGET(headers ...string) string {
	return "GET /doc HTTP/1.1\r\nHost: test\r\n" + strings.Join(append(headers, ""), "\r\n") + "\r\n"
}

// big is n bytes of JSON text that no shifted copy matches.
func big(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a' + byte((i*7+i/251)%26)
	}
	b[0], b[n-1] = '"', '"'
	return b
}

// A connection that reads the document is answered by the front door:
// both encodings (a large one by sendfile), 304 to its tag, the request id
// kept or drawn, every request counted once under the route and logged as
// sampled. Its first other request, a POST, goes to the full server with
// nothing lost, and so does everything after it on that connection.
func TestFrontDoorAnswersDocumentReaders(t *testing.T) {
	var sink lockedBuffer
	kept := big(40 << 10)
	json := append([]byte(nil), kept...)
	gz := gzipped(t, string(json))
	var current atomic.Pointer[httpx.Document]
	current.Store(httpx.NewDocument(`"v1"`, "public, max-age=5", kept, gz))
	// The bytes kept in memory change after the document kept its file: only
	// the file, sent by sendfile, answers with the document.
	copy(kept, bytes.Repeat([]byte("x"), len(kept)))
	_, addr := frontApp(t, "frontdoor", slog.New(slog.NewJSONHandler(&sink, nil)), &current, httpx.Options{AccessLogSample: 2})
	c := testkit.Dial(t, addr)

	c.Send(docGET())
	resp, body := c.Read("GET")
	if resp.StatusCode != 200 || !bytes.Equal(body, json) || resp.Header.Get("Content-Encoding") != "" ||
		resp.Header.Get("Content-Type") != httpx.ContentTypeJSON || resp.Header.Get("Etag") != `"v1"` ||
		resp.Header.Get("Vary") != "Accept-Encoding" || resp.Header.Get("Cache-Control") != "public, max-age=5" ||
		len(resp.Header.Get("X-Request-Id")) != 16 || resp.Header.Get("Date") == "" || resp.Header.Get("X-Served-By") != "" {
		t.Fatalf("identity: %d, %d bytes, headers %v", resp.StatusCode, len(body), resp.Header)
	}
	c.Send(docGET("Accept-Encoding: gzip, deflate", "X-Request-Id: req-front"))
	resp, body = c.Read("GET")
	if resp.StatusCode != 200 || !bytes.Equal(body, gz) || resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("X-Request-Id") != "req-front" {
		t.Fatalf("gzip: %d, %d bytes, headers %v", resp.StatusCode, len(body), resp.Header)
	}
	c.Send(docGET(`If-None-Match: "v0", W/"v1"`))
	resp, body = c.Read("GET")
	if resp.StatusCode != 304 || len(body) != 0 || resp.Header.Get("Etag") != `"v1"` || resp.Header.Get("Content-Length") != "" {
		t.Fatalf("a matching tag: %d, %d bytes, headers %v", resp.StatusCode, len(body), resp.Header)
	}
	if n := requests("frontdoor", "GET", "/doc", "200"); n != 2 {
		t.Fatalf("200s counted %v times, want 2", n)
	}
	if n := requests("frontdoor", "GET", "/doc", "304"); n != 1 {
		t.Fatalf("304s counted %v times, want 1", n)
	}

	// A new version is what the next request gets.
	current.Store(httpx.NewDocument(`"v2"`, "public, max-age=5", []byte(`{"v":2}`), gzipped(t, `{"v":2}`)))
	c.Send(docGET())
	if resp, body = c.Read("GET"); resp.StatusCode != 200 || string(body) != `{"v":2}` || resp.Header.Get("Etag") != `"v2"` {
		t.Fatalf("after a change: %d %s %v", resp.StatusCode, body, resp.Header)
	}

	c.Send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 9\r\n\r\n{\"a\":\"b\"}")
	if resp, body = c.Read("POST"); resp.StatusCode != 200 || string(body) != `{"a":"b"}` {
		t.Fatalf("POST after document reads: %d %s", resp.StatusCode, body)
	}
	c.Send(docGET())
	if resp, body = c.Read("GET"); resp.StatusCode != 200 || string(body) != `{"v":2}` || resp.Header.Get("X-Served-By") != "" {
		t.Fatalf("a document read on the full server (its fast path): %d %s %v", resp.StatusCode, body, resp.Header)
	}
	if n := requests("frontdoor", "GET", "/doc", "200"); n != 4 {
		t.Fatalf("200s counted %v times, want 4 (3 at the front door, 1 on the full server)", n)
	}
	lines := sink.lines(t, "request")
	if len(lines) != 3 || lines[0]["path"] != "/doc" || lines[0]["request_id"] == nil {
		t.Fatalf("access lines %v; want 3: the second and fourth of the reads, and the POST", lines)
	}
}

// Requests sent together are answered in order, whoever answers them: two
// document reads and a POST in one write, then a POST whose body looks
// like a document GET, which stays the POST's body.
func TestFrontDoorKeepsPipelinedRequestsInOrder(t *testing.T) {
	var current atomic.Pointer[httpx.Document]
	current.Store(httpx.NewDocument(`"v1"`, "public, max-age=5", []byte(`{"v":1}`), gzipped(t, `{"v":1}`)))
	_, addr := frontApp(t, "frontpipe", slog.New(slog.DiscardHandler), &current, httpx.Options{})
	c := testkit.Dial(t, addr)
	post := func(body string) string {
		return "POST /echo HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	}
	smuggled := docGET()
	c.Send(docGET("X-Request-Id: one") + docGET("X-Request-Id: two") + post(`{"n":3}`) + post(`"`+strings.ReplaceAll(smuggled, "\r\n", `\r\n`)+`"`))
	for _, want := range []string{"one", "two"} {
		if resp, body := c.Read("GET"); resp.StatusCode != 200 || string(body) != `{"v":1}` || resp.Header.Get("X-Request-Id") != want {
			t.Fatalf("read %s: %d %s %v", want, resp.StatusCode, body, resp.Header)
		}
	}
	if resp, body := c.Read("POST"); resp.StatusCode != 200 || string(body) != `{"n":3}` {
		t.Fatalf("POST: %d %s", resp.StatusCode, body)
	}
	if resp, body := c.Read("POST"); resp.StatusCode != 200 || !strings.Contains(string(body), `GET /doc HTTP/1.1`) {
		t.Fatalf("POST of a request-like body: %d %s", resp.StatusCode, body)
	}
	_ = c.Raw.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if n, err := c.Raw.Read(make([]byte, 1)); n != 0 || err == nil {
		t.Fatalf("a fifth answer (%d bytes): the POST's body was read as a request", n)
	}
}

// A request that arrives in pieces is answered once whole; one of another
// shape (HEAD, a query, HTTP/1.0, Connection: close) goes to the full
// server; before the first document exists the app's route answers.
func TestFrontDoorPassesWhatItDoesNotTake(t *testing.T) {
	var current atomic.Pointer[httpx.Document]
	_, addr := frontApp(t, "frontpass", slog.New(slog.DiscardHandler), &current, httpx.Options{})
	c := testkit.Dial(t, addr)
	c.Send(docGET())
	if resp, _ := c.Read("GET"); resp.StatusCode != 503 {
		t.Fatalf("no document yet: %d", resp.StatusCode)
	}
	current.Store(httpx.NewDocument(`"v1"`, "public, max-age=5", []byte(`{"v":1}`), gzipped(t, `{"v":1}`)))

	c = testkit.Dial(t, addr)
	whole := docGET("X-Request-Id: pieces")
	for i := 0; i < len(whole); i += 7 {
		c.Send(whole[i:min(i+7, len(whole))]) // a segment each (no Nagle on Go's connections)
	}
	if resp, body := c.Read("GET"); resp.StatusCode != 200 || string(body) != `{"v":1}` || resp.Header.Get("X-Request-Id") != "pieces" {
		t.Fatalf("in pieces: %d %s %v", resp.StatusCode, body, resp.Header)
	}

	for _, shape := range []struct{ name, method, req string }{
		{"HEAD", "HEAD", "HEAD /doc HTTP/1.1\r\nHost: test\r\n\r\n"},
		{"a query", "GET", "GET /doc?x=1 HTTP/1.1\r\nHost: test\r\n\r\n"},
		{"HTTP/1.0", "GET", "GET /doc HTTP/1.0\r\nHost: test\r\n\r\n"},
		{"Connection: close", "GET", docGET("Connection: close")},
	} {
		c := testkit.Dial(t, addr)
		c.Send(shape.req)
		resp, body := c.Read(shape.method)
		if resp.StatusCode != 200 || resp.Header.Get("Etag") != `"v1"` || (shape.method == "GET" && string(body) != `{"v":1}`) {
			t.Fatalf("%s: %d %s %v", shape.name, resp.StatusCode, body, resp.Header)
		}
	}
}

// A connection that sends half a request and stops is closed at the read
// timeout without an answer; a server shutting down closes the connections
// waiting at the front door at once, not at their idle timeout.
func TestFrontDoorTimeoutAndShutdown(t *testing.T) {
	var current atomic.Pointer[httpx.Document]
	current.Store(httpx.NewDocument(`"v1"`, "public, max-age=5", []byte(`{"v":1}`), gzipped(t, `{"v":1}`)))
	a, addr := frontApp(t, "fronttime", slog.New(slog.DiscardHandler), &current, httpx.Options{ReadTimeout: 300 * time.Millisecond})

	half := testkit.Dial(t, addr)
	half.Send("GET /doc HTTP/1.1\r\nHost: te")
	if !half.Closed(10 * time.Second) {
		t.Fatal("half a request: want the connection closed at the read timeout")
	}

	idle := testkit.Dial(t, addr)
	idle.Send(docGET())
	if resp, _ := idle.Read("GET"); resp.StatusCode != 200 {
		t.Fatalf("before shutdown: %d", resp.StatusCode)
	}
	done := make(chan error, 1)
	go func() { done <- a.ShutdownWithTimeout(10 * time.Second) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("shutdown did not return")
	}
	if !idle.Closed(10 * time.Second) {
		t.Fatal("an idle reader after shutdown: want the connection closed")
	}
	if _, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		t.Fatal("the listener still accepts after shutdown")
	}
}

// A reader slower than the document (a small receive buffer, read in
// small pieces) gets it whole: the answer waits for the socket to take
// more, header and body, and the next request on the connection is
// answered after it.
func TestFrontDoorWaitsForASlowReader(t *testing.T) {
	json := big(8 << 20) // over the largest send buffer (tcp_wmem) Linux grows to by default
	var current atomic.Pointer[httpx.Document]
	current.Store(httpx.NewDocument(`"v1"`, "public, max-age=5", json, gzipped(t, string(json))))
	_, addr := frontApp(t, "frontslow", slog.New(slog.DiscardHandler), &current, httpx.Options{})
	c := testkit.Over(t, smallReceiver(t, addr), 512)
	c.Send(docGET() + docGET("X-Request-Id: second"))
	for _, id := range []string{"", "second"} {
		resp, got := c.Read("GET")
		if resp.StatusCode != 200 || !bytes.Equal(got, json) || (id != "" && resp.Header.Get("X-Request-Id") != id) {
			t.Fatalf("slow reader: %d, %d of %d bytes, headers %v", resp.StatusCode, len(got), len(json), resp.Header)
		}
	}
}

// flakyListener fails its first accepts as a process out of file
// descriptors does.
type flakyListener struct {
	net.Listener
	failures atomic.Int32
}

func (l *flakyListener) Accept() (net.Conn, error) {
	if l.failures.Add(-1) >= 0 {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return l.Listener.Accept()
}

// Running out of file descriptors for a moment does not end the server:
// it waits and accepts again.
func TestServeOutlivesRunningOutOfDescriptors(t *testing.T) {
	var current atomic.Pointer[httpx.Document]
	current.Store(httpx.NewDocument(`"v1"`, "public, max-age=5", []byte(`{"v":1}`), gzipped(t, `{"v":1}`)))
	a := httpx.NewApp(httpx.Options{Service: "frontemfile", Logger: slog.New(slog.DiscardHandler)})
	a.Get("/doc", func(c *fiber.Ctx) error { return c.SendStatus(503) })
	httpx.DocumentGET(a, "/doc", current.Load)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	flaky := &flakyListener{Listener: ln}
	flaky.failures.Store(3)
	served := make(chan error, 1)
	go func() { served <- httpx.Serve(a, flaky) }()
	t.Cleanup(func() { _ = a.Shutdown() })
	c := testkit.Dial(t, ln.Addr().String())
	c.Send(docGET())
	if resp, body := c.Read("GET"); resp.StatusCode != 200 || string(body) != `{"v":1}` {
		t.Fatalf("after three failed accepts: %d %s", resp.StatusCode, body)
	}
	select {
	case err := <-served:
		t.Fatalf("Serve returned: %v", err)
	default:
	}
}

// A request's read timeout starts with its first byte: a keep-alive
// connection idle for longer than the read timeout (well within the idle
// one) that then sends a request in two pieces is answered.
func TestFrontDoorReadTimeoutStartsWithTheRequest(t *testing.T) {
	var current atomic.Pointer[httpx.Document]
	current.Store(httpx.NewDocument(`"v1"`, "public, max-age=5", []byte(`{"v":1}`), gzipped(t, `{"v":1}`)))
	_, addr := frontApp(t, "frontsplit", slog.New(slog.DiscardHandler), &current, httpx.Options{ReadTimeout: 300 * time.Millisecond})
	c := testkit.Dial(t, addr)
	c.Send(docGET())
	if resp, _ := c.Read("GET"); resp.StatusCode != 200 {
		t.Fatalf("first: %d", resp.StatusCode)
	}
	time.Sleep(600 * time.Millisecond) // the scenario: idle past the read timeout
	c.Send("GET /doc HTTP/1.1\r\n")
	time.Sleep(100 * time.Millisecond) // the scenario: the rest arrives later
	c.Send("Host: test\r\n\r\n")
	if resp, body := c.Read("GET"); resp.StatusCode != 200 || string(body) != `{"v":1}` {
		t.Fatalf("after an idle wait, in two pieces: %d %s", resp.StatusCode, body)
	}
}

// Shutdown lets an answer the front door is writing finish: with a reader
// that has not read yet it does not return, and once the reader took the
// whole document it returns without error.
func TestShutdownWaitsForTheFrontDoorsAnswers(t *testing.T) {
	json := big(8 << 20)
	var current atomic.Pointer[httpx.Document]
	current.Store(httpx.NewDocument(`"v1"`, "public, max-age=5", json, gzipped(t, string(json))))
	a, addr := frontApp(t, "frontstop", slog.New(slog.DiscardHandler), &current, httpx.Options{})
	c := testkit.Over(t, smallReceiver(t, addr), 512)
	c.Send(docGET())
	c.AwaitAnswer()
	done := make(chan error, 1)
	go func() { done <- httpx.Shutdown(a, 20*time.Second) }()
	select {
	case err := <-done:
		t.Fatalf("Shutdown returned (%v) with 8 MiB unread", err)
	case <-time.After(300 * time.Millisecond): // it cannot return before the read below
	}
	if resp, body := c.Read("GET"); resp.StatusCode != 200 || !bytes.Equal(body, json) {
		t.Fatalf("during shutdown: %d, %d of %d bytes", resp.StatusCode, len(body), len(json))
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Shutdown did not return after the answer was read")
	}
}

// smallReceiver dials addr with a 4 KiB receive buffer: a slow reader.
func smallReceiver(t *testing.T, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		if err != nil {
			return err
		}
		return serr
	}}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// A document source that panics gets the full server's answer to a panic,
// INTERNAL_ERROR with the request id, on a connection of the front door too.
func TestFrontDoorPanicIsAnInternalError(t *testing.T) {
	a := httpx.NewApp(httpx.Options{Service: "frontpanic", Logger: slog.New(slog.DiscardHandler)})
	a.Get("/doc", func(c *fiber.Ctx) error { return c.SendStatus(503) })
	httpx.DocumentGET(a, "/doc", func() *httpx.Document { panic("bad state") })
	c := testkit.Dial(t, serve(t, a))
	c.Send(docGET("X-Request-Id: req-panic"))
	resp, body := c.Read("GET")
	if resp.StatusCode != 500 || !strings.Contains(string(body), "INTERNAL_ERROR") || resp.Header.Get("X-Request-Id") != "req-panic" {
		t.Fatalf("panic at the front door: %d %s %v", resp.StatusCode, body, resp.Header)
	}
}
