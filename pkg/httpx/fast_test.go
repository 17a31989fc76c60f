package httpx_test

import (
	"log/slog"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/metrics"
	"sharedworld.dev/pkg/testkit"
)

func requests(service, method, route, code string) float64 {
	return testutil.ToFloat64(metrics.HTTPRequests.WithLabelValues(service, method, route, code))
}

// A fast GET answers ahead of the router with what the middleware chain
// gives every request: the request id (kept or drawn), exact metrics under
// the route's label, the sampled access line with its request id; a query,
// a body or a document not there yet goes to the app's route instead,
// counted once.
func TestDocumentGETKeepsWhatTheChainGives(t *testing.T) {
	var sink lockedBuffer
	a := httpx.NewApp(httpx.Options{Service: "fasttest", Logger: slog.New(slog.NewJSONHandler(&sink, nil)), AccessLogSample: 4})
	doc := httpx.NewDocument(`"v1"`, "public, max-age=5", []byte(`{"ok":true}`), gzipped(t, `{"ok":true}`))
	ready := true
	a.Get("/doc", func(c *fiber.Ctx) error {
		c.Set("X-Served-By", "router")
		return httpx.OK(c, 200, nil)
	})
	httpx.DocumentGET(a, "/doc", func() *httpx.Document {
		if !ready {
			return nil
		}
		return doc
	})

	for range 8 {
		r := testkit.Do(t, a, testkit.Request{Method: "GET", Path: "/doc"})
		if r.Status != 200 || r.Header["X-Served-By"] != "" || r.Header["Etag"] != `"v1"` || r.Header["Vary"] != "Accept-Encoding" ||
			r.Header["Cache-Control"] != "public, max-age=5" || r.Body["ok"] != true || len(r.Header["X-Request-Id"]) != 16 {
			t.Fatalf("GET: status %d, headers %v, body %s", r.Status, r.Header, r.Raw)
		}
	}
	r := testkit.Do(t, a, testkit.Request{Method: "HEAD", Path: "/doc", Headers: map[string]string{"X-Request-Id": "req-fast"}})
	if r.Status != 200 || r.Header["X-Served-By"] != "" || r.Header["Etag"] != `"v1"` || r.Header["X-Request-Id"] != "req-fast" || len(r.Raw) != 0 {
		t.Fatalf("HEAD: status %d, %d bytes, headers %v", r.Status, len(r.Raw), r.Header)
	}
	if n := requests("fasttest", "GET", "/doc", "200"); n != 8 {
		t.Fatalf("fast GETs counted %v times, want 8", n)
	}
	if n := requests("fasttest", "HEAD", "/doc", "200"); n != 1 {
		t.Fatalf("fast HEADs counted %v times, want 1", n)
	}
	lines := sink.lines(t, "request")
	if len(lines) != 2 || lines[0]["path"] != "/doc" || lines[0]["request_id"] == nil || lines[0]["status"] != 200.0 {
		t.Fatalf("access lines %v; want 2 of 9 (1 in 4) with path, status and request id", lines)
	}

	for _, req := range []testkit.Request{
		{Method: "GET", Path: "/doc?x=1"},
		{Method: "GET", Path: "/doc", Body: []byte("{}")},
	} {
		if r := testkit.Do(t, a, req); r.Status != 200 || r.Header["X-Served-By"] != "router" {
			t.Fatalf("%s %s with a body of %v: status %d, served by %q", req.Method, req.Path, req.Body != nil, r.Status, r.Header["X-Served-By"])
		}
	}
	ready = false
	if r := testkit.Do(t, a, testkit.Request{Method: "GET", Path: "/doc"}); r.Status != 200 || r.Header["X-Served-By"] != "router" || len(r.Header["X-Request-Id"]) != 16 {
		t.Fatalf("declined: status %d, headers %v", r.Status, r.Header)
	}
	if n := requests("fasttest", "GET", "/doc", "200"); n != 11 {
		t.Fatalf("GETs counted %v times, want 11 (8 fast, 3 by the router, each once)", n)
	}
}

// A panic on the fast path is the contract's INTERNAL_ERROR, counted and
// always logged with the request id.
func TestDocumentGETPanicIsAnInternalError(t *testing.T) {
	var sink lockedBuffer
	a := httpx.NewApp(httpx.Options{Service: "fastpanic", Logger: slog.New(slog.NewJSONHandler(&sink, nil)), AccessLogSample: 100})
	a.Get("/boom", func(c *fiber.Ctx) error { return httpx.OK(c, 200, nil) })
	httpx.DocumentGET(a, "/boom", func() *httpx.Document { panic("bad state") })
	r := testkit.Do(t, a, testkit.Request{Method: "GET", Path: "/boom", Headers: map[string]string{"X-Request-Id": "req-boom"}})
	if r.Status != 500 || r.Body["ok"] != false || r.Body["error"] != "INTERNAL_ERROR" || r.Body["hint"] == "" || r.Header["X-Request-Id"] != "req-boom" {
		t.Fatalf("panic: status %d, body %s, headers %v", r.Status, r.Raw, r.Header)
	}
	if n := requests("fastpanic", "GET", "/boom", "500"); n != 1 {
		t.Fatalf("the 500 counted %v times", n)
	}
	panics, lines := sink.lines(t, "panic"), sink.lines(t, "request")
	if len(panics) != 1 || panics[0]["request_id"] != "req-boom" || len(lines) != 1 || lines[0]["status"] != 500.0 {
		t.Fatalf("panic lines %v, access lines %v", panics, lines)
	}
}
