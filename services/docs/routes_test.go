package docs_test

import (
	"strings"
	"testing"

	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/docs"
)

var documents = []struct{ path, contentType string }{
	{"/openapi.json", "application/json; charset=utf-8"},
	{"/docs", "text/html; charset=utf-8"},
	{"/agent.txt", "text/plain; charset=utf-8"},
	{"/safety", "text/html; charset=utf-8"},
	{"/founding", "text/html; charset=utf-8"},
	{"/.well-known/world.json", "application/json; charset=utf-8"},
}

func TestDocumentsAnswerWithTheirContentType(t *testing.T) {
	for _, opts := range []docs.Options{devWorld, {}} {
		app := newApp(t, opts)
		for _, d := range documents {
			resp := testkit.Do(t, app, testkit.Request{Method: "GET", Path: d.path})
			resp.ExpectStatus(t, 200)
			if got := resp.Header["Content-Type"]; got != d.contentType {
				t.Errorf("%s: Content-Type %q, want %q", d.path, got, d.contentType)
			}
			if len(resp.Raw) < 200 {
				t.Errorf("%s: only %d bytes", d.path, len(resp.Raw))
			}
			if resp.Header["X-Request-Id"] == "" {
				t.Errorf("%s: no X-Request-Id", d.path)
			}
			if strings.HasPrefix(d.contentType, "text/html") {
				if csp := resp.Header["Content-Security-Policy"]; !strings.Contains(csp, "default-src 'none'") {
					t.Errorf("%s: Content-Security-Policy %q", d.path, csp)
				}
				if body := strings.ToLower(string(resp.Raw)); strings.Contains(body, "<script") || strings.Contains(body, " src=") {
					t.Errorf("%s: the page loads a script or a remote resource", d.path)
				}
			}
		}
	}
}

func TestOpenAPIIsTheDocumentNotAnEnvelope(t *testing.T) {
	resp := testkit.Do(t, newApp(t, devWorld), testkit.Request{Method: "GET", Path: "/openapi.json"})
	if resp.Body["openapi"] != "3.1.0" || resp.Body["paths"] == nil {
		t.Fatalf("not an OpenAPI document: %.200s", resp.Raw)
	}
	if _, wrapped := resp.Body["ok"]; wrapped {
		t.Fatal(`/openapi.json must be the document itself, without "ok"`)
	}
	if strings.Contains(string(resp.Raw), `\u003c`) {
		t.Error("the document escapes < as \\u003c; serve it readable")
	}
}

func TestConditionalGet(t *testing.T) {
	app := newApp(t, devWorld)
	for _, path := range []string{"/openapi.json", "/docs", "/agent.txt"} {
		first := testkit.Do(t, app, testkit.Request{Method: "GET", Path: path})
		etag := first.Header["Etag"]
		if etag == "" {
			t.Fatalf("%s: no ETag", path)
		}
		again := testkit.Do(t, app, testkit.Request{Method: "GET", Path: path, Headers: map[string]string{"If-None-Match": etag}})
		if again.Status != 304 || len(again.Raw) != 0 {
			t.Errorf("%s: If-None-Match with the current ETag gave %d and %d bytes", path, again.Status, len(again.Raw))
		}
		stale := testkit.Do(t, app, testkit.Request{Method: "GET", Path: path, Headers: map[string]string{"If-None-Match": `"stale"`}})
		stale.ExpectStatus(t, 200)
	}
}

func TestDocumentsKeepTheErrorModel(t *testing.T) {
	app := newApp(t, devWorld)
	testkit.Do(t, app, testkit.Request{Method: "POST", Path: "/docs"}).ExpectError(t, 405, "method_not_allowed")
	testkit.Do(t, app, testkit.Request{Method: "GET", Path: "/docs/nothing-here"}).ExpectError(t, 404, "not_found")
}

func TestDocumentsDependOnTheWorld(t *testing.T) {
	a := testkit.Do(t, newApp(t, devWorld), testkit.Request{Method: "GET", Path: "/docs"})
	b := testkit.Do(t, newApp(t, docs.Options{WorldName: "Other <World>"}), testkit.Request{Method: "GET", Path: "/docs"})
	if !strings.Contains(string(a.Raw), "Test World") {
		t.Error("/docs does not name the world")
	}
	if !strings.Contains(string(b.Raw), "Other &lt;World&gt;") || strings.Contains(string(b.Raw), "Other <World>") {
		t.Error("/docs does not escape the world's name")
	}
	if a.Header["Etag"] == b.Header["Etag"] {
		t.Error("two different worlds' pages share an ETag")
	}
}
