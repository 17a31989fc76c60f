package testkit

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gofiber/fiber/v2"
)

// Response is a decoded HTTP response.
type Response struct {
	Status int
	Header map[string]string
	Body   map[string]any
	Raw    []byte
}

// Request describes one call through the real router.
type Request struct {
	Method  string
	Path    string
	Body    any // marshalled as JSON unless []byte or string
	Headers map[string]string
}

// Do sends r through app (the production router, in memory), holds the
// answer to the OpenAPI document (CheckContract) and decodes its JSON.
func Do(t testing.TB, app *fiber.App, r Request) Response {
	t.Helper()
	var body io.Reader
	switch b := r.Body.(type) {
	case nil:
	case []byte:
		body = bytes.NewReader(b)
	case string:
		body = bytes.NewReader([]byte(b))
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("marshal request body: %v", err)
		}
		body = bytes.NewReader(raw)
	}
	req := httptest.NewRequest(r.Method, r.Path, body)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range r.Headers {
		req.Header.Set(k, v)
	}
	resp, err := app.Test(req, -1)
	if err != nil {
		t.Fatalf("%s %s: %v", r.Method, r.Path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	out := Response{Status: resp.StatusCode, Raw: raw, Header: map[string]string{}}
	for k := range resp.Header {
		out.Header[k] = resp.Header.Get(k)
	}
	CheckContract(t, r.Method, r.Path, resp.StatusCode, resp.Header, raw)
	if len(raw) > 0 && (raw[0] == '{' || raw[0] == '[') {
		if err := json.Unmarshal(raw, &out.Body); err != nil {
			t.Fatalf("%s %s: response is not JSON: %s", r.Method, r.Path, raw)
		}
	}
	return out
}

// ExpectError asserts an error response with status and code, and that it carries a hint.
func (r Response) ExpectError(t testing.TB, status int, code string) {
	t.Helper()
	if r.Status != status || r.Body["error"] != code || r.Body["ok"] != false {
		t.Fatalf("want %d %s, got %d %s", status, code, r.Status, r.Raw)
	}
	if h, _ := r.Body["hint"].(string); h == "" {
		t.Fatalf("error %s has no hint: %s", code, r.Raw)
	}
	if m, _ := r.Body["message"].(string); m == "" {
		t.Fatalf("error %s has no message: %s", code, r.Raw)
	}
}

// ExpectStatus asserts the status code.
func (r Response) ExpectStatus(t testing.TB, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("want status %d, got %d: %s", status, r.Status, r.Raw)
	}
}

// RawExchange writes req to addr byte for byte (duplicate headers, bad
// framing and all, which an HTTP client would refuse to send) and reads one
// response; it returns the response and its whole body.
func RawExchange(t testing.TB, addr, req string) (*http.Response, []byte) {
	t.Helper()
	c := Dial(t, addr)
	defer c.Raw.Close()
	c.Send(req)
	return c.Read(http.MethodGet)
}
