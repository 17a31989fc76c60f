package httpx_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/logging"
	"sharedworld.dev/pkg/metrics"
	"sharedworld.dev/pkg/testkit"
)

// lockedBuffer is a log sink the server's goroutines may write to.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// lines returns the JSON log records with msg.
func (l *lockedBuffer) lines(t *testing.T, msg string) []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.b.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		if rec["msg"] == msg {
			out = append(out, rec)
		}
	}
	return out
}

func TestAccessLogSamplesSuccessfulReadsOnly(t *testing.T) {
	var sink lockedBuffer
	log := slog.New(slog.NewJSONHandler(&sink, nil))
	a := httpx.NewApp(httpx.Options{Service: "sampletest", Logger: log, AccessLogSample: 5})
	a.Get("/read", func(c *fiber.Ctx) error { return httpx.OK(c, 200, nil) })
	a.Post("/write", func(c *fiber.Ctx) error {
		logging.FromContext(c.UserContext()).Info("handler says")
		return httpx.OK(c, 201, nil)
	})
	for range 20 {
		testkit.Do(t, a, testkit.Request{Method: "GET", Path: "/read"}).ExpectStatus(t, 200)
	}
	testkit.Do(t, a, testkit.Request{Method: "GET", Path: "/missing"}).ExpectStatus(t, 404)
	w := testkit.Do(t, a, testkit.Request{Method: "POST", Path: "/write", Body: map[string]any{}, Headers: map[string]string{"X-Request-Id": "req-42"}})
	w.ExpectStatus(t, 201)

	byPath := map[string]int{}
	for _, rec := range sink.lines(t, "request") {
		byPath[rec["path"].(string)]++
	}
	if byPath["/read"] != 4 || byPath["/missing"] != 1 || byPath["/write"] != 1 {
		t.Fatalf("access lines per path = %v; want 4 of 20 sampled reads (1 in 5), the 404 and the write always", byPath)
	}
	said := sink.lines(t, "handler says")
	if len(said) != 1 || said[0]["request_id"] != "req-42" {
		t.Fatalf("a handler's log line must carry the request id: %v", said)
	}
	// Metrics count every request, sampled or not.
	if n := testutil.ToFloat64(metrics.HTTPRequests.WithLabelValues("sampletest", "GET", "/read", "200")); n != 20 {
		t.Fatalf("requests counted = %v, want 20", n)
	}
}

func TestAccessLogEveryRequestWithoutSample(t *testing.T) {
	var sink lockedBuffer
	a := httpx.NewApp(httpx.Options{Service: "nosampletest", Logger: slog.New(slog.NewJSONHandler(&sink, nil))})
	a.Get("/read", func(c *fiber.Ctx) error { return httpx.OK(c, 200, nil) })
	for range 3 {
		testkit.Do(t, a, testkit.Request{Method: "GET", Path: "/read"}).ExpectStatus(t, 200)
	}
	if n := len(sink.lines(t, "request")); n != 3 {
		t.Fatalf("%d access lines, want 3", n)
	}
}
