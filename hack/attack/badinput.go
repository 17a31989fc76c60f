package attack

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// goName matches what leaks of Go in a message: a type's field
// (permissionFields.allowed_agents, cellJSON.x) or the decoder's own words.
var goName = regexp.MustCompile(`\b[a-z]+[A-Z][A-Za-z0-9]*\.[A-Za-z_]+|Go (struct|value)|json: |\bunmarshal\b`)

// BadInput sends bad input and oversized bodies to every documented operation:
// text that is not UTF-8 (query, path, JSON), made-up cursors, huge
// limits, wrong and unknown methods, bodies with huge numbers, wrong types
// and deep nesting, two Content-Lengths, a long URL and bodies over the
// limit from Go's own client. Any 5xx, any acceptance, any refusal without
// the contract's error body or with Go's names in it is an anomaly.
func BadInput(w *World, doc Document) *Category {
	cat := &Category{Name: "bad input"}
	cat.Tolerate429 = true
	ada, err := w.NewCitizen(cat, "Strict")
	if err != nil {
		cat.Note("no citizen: %v", err)
		return cat
	}
	creds := func(p string) http.Header {
		if strings.HasPrefix(p, "/api/admin/") {
			return w.Admin()
		}
		return ada.Headers()
	}
	refused := func(r Reply, why string) {
		if r.Status == 429 && cat.Tolerate429 {
			cat.Want(r, why)
			return
		}
		if r.Err != nil || r.Status < 400 || r.Status >= 500 {
			cat.Flag(r, "%s: want a 4xx refusal", why)
			return
		}
		if cat.ErrorBody(r, why, "") && goName.MatchString(r.Str("message")+" "+r.Str("hint")) {
			cat.Flag(r, "%s: the message names Go's types or decoder", why)
		}
	}
	for _, op := range doc.Operations {
		p := Fill(op.Path, "plot_0_0")
		for _, q := range []string{"search=%ff", "interest=%c3%28", "q=%ed%a0%80", "%ff=1"} {
			r := w.Send(cat, op.Method, p+"?"+q, nil, creds(op.Path))
			if cat.Refused(r, "text that is not UTF-8 in the query", 400, "invalid_request") && !strings.Contains(r.Str("message"), "UTF-8") {
				cat.Flag(r, "the 400 does not name UTF-8")
			}
		}
		if strings.Contains(op.Path, "{") {
			cat.Refused(w.Send(cat, op.Method, Fill(op.Path, "%ff"), nil, creds(op.Path)), "a path parameter that is not UTF-8", 400, "invalid_request")
		}
		if op.Body {
			for _, body := range badBodies(op.Fields) {
				refused(w.Send(cat, op.Method, p, []byte(body.text), creds(op.Path)), body.what)
			}
		}
		if op.Takes("Limit") {
			r := w.Send(cat, op.Method, p+"?limit=99999999999999999999", nil, creds(op.Path))
			if r.Err != nil || r.Status >= 500 || strings.Contains(r.Str("message"), "limit") {
				cat.Flag(r, "a huge limit must be capped like any large limit")
			}
			if pg, ok := r.JSON["pagination"].(map[string]any); ok && pg["limit"] != nil && pg["limit"] != float64(100) {
				cat.Flag(r, "a huge limit is answered with limit %v, want the cap of 100", pg["limit"])
			}
		}
		if op.Takes("Cursor") {
			for _, cur := range []string{"e30", "eyJ4IjoxfQ", "bnVsbA", "%ff", "AAAA"} { // {}, {"x":1}, null
				cat.Refused(w.Send(cat, op.Method, p+"?cursor="+cur, nil, creds(op.Path)), "a made-up cursor", 400, "invalid_request")
			}
		}
	}
	// A number beyond the grid is named as sent, not as it wrapped.
	for _, body := range []string{`{"x":1e20,"y":7}`, `{"coordinates":{"x":1e20,"y":7}}`, `{"x":-99999999999999999999,"y":7}`} {
		r := w.Send(cat, "POST", "/api/world/plots/claim", []byte(body), ada.Headers())
		refused(r, "a coordinate beyond the grid")
		if strings.Contains(r.Str("message"), "1099511627776") {
			cat.Flag(r, "the message reports a coordinate that was not sent")
		}
	}
	methods(w, cat, doc)
	framing(w, cat)
	oversized(w, cat, ada)
	return cat
}

type badBody struct{ what, text string }

// badBodies are JSON bodies that must be refused: the operation's own
// fields (and common ones) with text that is not UTF-8, values of the
// wrong type, numbers beyond float64; deep nesting; broken JSON.
func badBodies(own []string) []badBody {
	fields := []string{"name", "title", "content", "path", "plot_id", "bio", "description", "subject", "advance", "category"}
	for _, f := range own {
		if !contains(fields, f) {
			fields = append(fields, f)
		}
	}
	var bad, wrongType, huge strings.Builder
	for i, f := range fields {
		sep := ","
		if i == 0 {
			sep = "{"
		}
		fmt.Fprintf(&bad, "%s%q:\"a\xffb\"", sep, f)
		fmt.Fprintf(&wrongType, "%s%q:[1]", sep, f)
		fmt.Fprintf(&huge, "%s%q:1e400", sep, f)
	}
	return []badBody{
		{"JSON text that is not UTF-8", bad.String() + "}"},
		{"JSON with lone surrogates", `{"name":"\ud800","title":"\udfff","path":"\ud800","content":"\udc00"}`},
		{"JSON fields of the wrong type", wrongType.String() + `,"x":1e20,"y":"1","allowed_agents":"nope","coordinates":{"x":1e20,"y":7}}`},
		{"JSON numbers beyond float64", huge.String() + `,"x":1e400,"y":99999999999999999999999999}`},
		{"JSON nested 100000 deep", `{"name":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}`},
		{"JSON cut short", `{"name":"a`},
		{"JSON with two values", `{} {}`},
		{"JSON that is not an object", `[1,2,3]`},
	}
}

// methods: every method a documented path does not serve is 405 with the
// JSON body and an Allow naming what it serves; an unknown method too.
func methods(w *World, cat *Category, doc Document) {
	for p, served := range ByPath(doc.Operations) {
		for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
			if contains(served, m) {
				continue
			}
			r := w.Send(cat, m, Fill(p, "x1"), nil, nil)
			if !cat.Refused(r, "a method the path does not serve", 405, "method_not_allowed") {
				continue
			}
			for _, want := range served {
				if !strings.Contains(r.Header.Get("Allow"), want) {
					cat.Flag(r, "Allow %q lacks %s", r.Header.Get("Allow"), want)
				}
			}
		}
	}
	r := w.Send(cat, "GET", "/api/world/plots/claim", nil, nil)
	if cat.Refused(r, "GET on the claim route beside /plots/{plot_id}", 405, "method_not_allowed") && r.Header.Get("Allow") != "POST" {
		cat.Flag(r, "Allow is %q, want POST", r.Header.Get("Allow"))
	}
	for _, m := range []string{"BREW", "PROPFIND", "TRACE", "CONNECT"} {
		r := w.Send(cat, m, "/api/world/plots", nil, nil)
		if r.Status >= 500 || r.Err != nil || r.Status < 400 {
			cat.Flag(r, "an unknown method must be refused with a 4xx")
		} else {
			cat.ErrorBody(r, "an unknown method", "")
		}
	}
}

// framing: request smuggling shapes and a URL beyond the server's buffer.
func framing(w *World, cat *Category) {
	r := w.Raw(cat, "two Content-Length headers", "POST /api/world/tickets HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\n{}{}{}{")
	if cat.Refused(r, "two different Content-Length headers", 400, "invalid_request") && r.Header.Get("X-Attack-Closed") == "" {
		cat.Flag(r, "the connection stays open after a framing error")
	}
	r = w.Raw(cat, "Content-Length and chunked", "POST /api/world/tickets HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
	if r.Err != nil || r.Status < 400 || r.Status >= 500 {
		cat.Flag(r, "Content-Length with Transfer-Encoding must be refused")
	}
	r = w.Raw(cat, "a 20000-byte URL", "GET /api/world/plots?x="+strings.Repeat("a", 20000)+" HTTP/1.1\r\nHost: x\r\n\r\n")
	if cat.Want(r, "a long URL", 400, 414, 431) && !strings.Contains(r.Str("hint"), "URL") {
		cat.Flag(r, "a long URL's hint does not speak of the URL")
	}
	r = w.Raw(cat, "a header of 64 KiB", "GET /api/world/plots HTTP/1.1\r\nHost: x\r\nX-Big: "+strings.Repeat("b", 64<<10)+"\r\n\r\n")
	if r.Err != nil || r.Status < 400 || r.Status >= 500 {
		cat.Flag(r, "a 64 KiB header must be refused with a 4xx")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
