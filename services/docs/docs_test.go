package docs_test

import (
	"html"
	"strings"
	"testing"

	"sharedworld.dev/pkg/ratelimit"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/docs"
)

func TestReferenceShowsEveryPathAndMethod(t *testing.T) {
	doc := servedDocument(t)
	page := string(testkit.Do(t, newApp(t, devWorld), testkit.Request{Method: "GET", Path: "/docs"}).Raw)
	for path, item := range doc.Paths.Map() {
		if !strings.Contains(page, "<code>"+html.EscapeString(path)+"</code>") {
			t.Errorf("/docs does not show %s", path)
		}
		for method, op := range item.Operations() {
			if !strings.Contains(page, `<span class="method `+method+`">`+method+`</span> <code>`+html.EscapeString(path)+`</code></h3>`) {
				t.Errorf("/docs has no section for %s %s", method, path)
			}
			if !strings.Contains(page, html.EscapeString(op.Summary)) {
				t.Errorf("/docs lacks the summary of %s %s", method, path)
			}
		}
	}
}

func TestReferenceShowsAuthFieldsResponsesAndCodes(t *testing.T) {
	page := string(testkit.Do(t, newApp(t, devWorld), testkit.Request{Method: "GET", Path: "/docs"}).Raw)
	section := sectionOf(t, page, "op-post-api-world-tickets")
	for _, want := range []string{
		"Certificate of a registered, living citizen.", // auth
		"<code>description</code>",                     // a request field
		"at most 3000 characters",                      // its rule
		"<td>201</td>",                                 // a response
		"<code>DESCRIPTION_TOO_LONG</code>",            // an error code
		"<code>not_registered</code>",
		"Retry-After", // the 429 header
	} {
		if !strings.Contains(section, want) {
			t.Errorf("the POST /api/world/tickets section lacks %q", want)
		}
	}
	register := sectionOf(t, page, "op-post-api-world-register")
	if !strings.Contains(register, "<code>data</code>") || !strings.Contains(register, "<code>already_registered</code>") {
		t.Error("the register section lacks the nested data field or already_registered")
	}
	for _, code := range []string{"invalid_request", "certificate_revoked", "method_not_allowed", "INTERNAL_ERROR", "unavailable"} {
		if !strings.Contains(sectionOf(t, page, "errors"), "<code>"+code+"</code>") {
			t.Errorf("the error table lacks %s", code)
		}
	}
	if !strings.Contains(sectionOf(t, page, "limits"), "<code>tickets_per_day</code>") {
		t.Error("the limits table lacks tickets_per_day")
	}
	for _, r := range ratelimit.Defaults() {
		if !strings.Contains(sectionOf(t, page, "limits"), "<code>"+r.DocName()+"</code>") {
			t.Errorf("the limits table lacks the kit's rate limit %s", r.DocName())
		}
	}
}

func TestReferenceSaysWhetherTheDevelopmentProviderIsOn(t *testing.T) {
	on := string(testkit.Do(t, newApp(t, devWorld), testkit.Request{Method: "GET", Path: "/docs"}).Raw)
	off := string(testkit.Do(t, newApp(t, docs.Options{}), testkit.Request{Method: "GET", Path: "/docs"}).Raw)
	if !strings.Contains(on, "This world runs the development identity provider") {
		t.Error("/docs does not say the development provider is on")
	}
	if !strings.Contains(off, "does not run the development identity provider") {
		t.Error("/docs does not say the development provider is off")
	}
}

// sectionOf returns the HTML from the element with id to the next section.
func sectionOf(t *testing.T, page, id string) string {
	t.Helper()
	i := strings.Index(page, `id="`+id+`"`)
	if i < 0 {
		t.Fatalf("/docs has no element with id %q", id)
	}
	rest := page[i+len(id):]
	end := len(rest)
	for _, next := range []string{"<section ", "<h2 "} {
		if j := strings.Index(rest, next); j >= 0 && j < end {
			end = j
		}
	}
	return rest[:end]
}
