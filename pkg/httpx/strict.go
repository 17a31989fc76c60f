package httpx

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"sharedworld.dev/pkg/problem"
)

// Protocol strictness that Fiber and fasthttp leave open: requests the
// router never sees (an unknown method, two framings of one body) and text
// that is not UTF-8, which Go would carry on with as replacement characters.

// guardServer answers what must not reach Fiber's router with the
// contract's error body: a method outside the HTTP set (Fiber would answer
// text/plain) and a request whose body length is ambiguous (two different
// Content-Length headers, or one beside Transfer-Encoding), which a proxy
// in front may have framed differently: the connection closes after the 400.
func guardServer(srv *fasthttp.Server) {
	next := srv.Handler
	srv.Handler = func(ctx *fasthttp.RequestCtx) {
		if !knownMethod(ctx.Method()) {
			writeRaw(ctx, problemMethod(string(ctx.Method())), "")
			return
		}
		if ambiguousLength(ctx.Request.Header.RawHeaders()) {
			refuseFraming(ctx)
			return
		}
		next(ctx)
	}
	// A request whose body length is ambiguous is refused as soon as its
	// headers are read, not after a body of the length fasthttp believes:
	// a body limit of one byte makes fasthttp stop at once with
	// ErrBodyTooLarge, which serverErrors answers with refuseFraming.
	// The verdict travels to serverErrors in a header of the request
	// (fasthttp does not keep every raw header after a failed body read);
	// one a client sent under that name is dropped first. A chunked body
	// (fasthttp's reading of any Transfer-Encoding) is read as it comes,
	// never waited for beyond what was sent: guardServer refuses it.
	srv.HeaderReceived = func(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
		h.Del(headerAmbiguous)
		if h.ContentLength() >= 0 && ambiguousLength(h.RawHeaders()) {
			h.Set(headerAmbiguous, "1")
			return fasthttp.RequestConfig{MaxRequestBodySize: 1}
		}
		return fasthttp.RequestConfig{}
	}
}

// headerAmbiguous marks, inside the server, a request HeaderReceived found
// ambiguous.
const headerAmbiguous = "X-Sharedworld-Ambiguous-Length"

// framingRefused reports a request HeaderReceived found ambiguous.
func framingRefused(ctx *fasthttp.RequestCtx) bool {
	return len(ctx.Request.Header.Peek(headerAmbiguous)) > 0
}

// refuseFraming answers a request whose body length is ambiguous (400) and
// closes the connection: where its body ends, and so where the next
// request starts, cannot be known.
func refuseFraming(ctx *fasthttp.RequestCtx) {
	writeRaw(ctx, problem.Invalid("The request's body length is ambiguous: Content-Length twice with different values, Content-Length beside Transfer-Encoding, or a Transfer-Encoding other than chunked.",
		"Send exactly one Content-Length header, or Transfer-Encoding: chunked alone."), "")
	ctx.SetConnectionClose()
}

func problemMethod(m string) *problem.Error {
	if len(m) > 20 || !utf8.ValidString(m) {
		m = "this method"
	}
	return &problem.Error{Kind: problem.KindMethodNotAllowed,
		Message: "The method " + m + " is not one this API serves.",
		Hint:    "Use GET, POST, PUT, PATCH or DELETE as /openapi.json lists for each path."}
}

// writeRaw writes a problem outside Fiber (no Fiber context exists yet),
// with the request id every answer carries (the one sent, as the app
// keeps it, or a new one) for the client to quote.
func writeRaw(ctx *fasthttp.RequestCtx, pe *problem.Error, allow string) {
	status, code := StatusOf(pe)
	b, _ := json.Marshal(ErrorBody{OK: false, Error: code, Message: pe.Message, Hint: pe.Hint})
	id := string(ctx.Request.Header.Peek(HeaderRequestID))
	if id == "" || len(id) > 64 {
		id = newRequestID()
	}
	ctx.Response.Reset()
	ctx.Response.Header.Set(HeaderRequestID, id)
	ctx.SetStatusCode(status)
	ctx.SetContentType(ContentTypeJSON)
	if allow != "" {
		ctx.Response.Header.Set(fiber.HeaderAllow, allow)
	}
	ctx.SetBody(b)
}

func knownMethod(m []byte) bool {
	switch string(m) { // no allocation: the compiler compares in place
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return true
	}
	return false
}

var (
	contentLength    = []byte("content-length")
	transferEncoding = []byte("transfer-encoding")
	chunkedCoding    = []byte("chunked")
)

// ambiguousLength scans the raw header block (fasthttp keeps only the last
// Content-Length it saw) for a second, different Content-Length, one
// beside Transfer-Encoding, or a Transfer-Encoding other than chunked
// (fasthttp reads any value as chunked).
func ambiguousLength(raw []byte) bool {
	var length []byte
	lengths, chunked := 0, false
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		colon := bytes.IndexByte(line, ':')
		if colon < 0 {
			continue
		}
		key, value := line[:colon], bytes.TrimSpace(line[colon+1:])
		switch {
		case len(key) == len(contentLength) && bytes.EqualFold(key, contentLength):
			if lengths > 0 && !bytes.Equal(value, length) {
				return true
			}
			length = value
			lengths++
		case len(key) == len(transferEncoding) && bytes.EqualFold(key, transferEncoding):
			if chunked || !bytes.EqualFold(value, chunkedCoding) {
				return true
			}
			chunked = true
		}
	}
	return lengths > 0 && chunked
}

// validText reports whether raw, once percent-decoded as a URL decodes it,
// is UTF-8. It decodes as it goes and allocates nothing.
func validText(raw []byte) bool {
	var pend [utf8.UTFMax]byte
	n := 0
	for i := 0; i < len(raw); i++ {
		b := raw[i]
		if b == '%' && i+2 < len(raw) && isHex(raw[i+1]) && isHex(raw[i+2]) {
			b = unhex(raw[i+1])<<4 | unhex(raw[i+2])
			i += 2
		}
		if n == 0 && b < utf8.RuneSelf {
			continue
		}
		pend[n] = b
		n++
		if utf8.FullRune(pend[:n]) {
			if r, size := utf8.DecodeRune(pend[:n]); r == utf8.RuneError && size == 1 {
				return false
			}
			n = 0
		}
	}
	return n == 0
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// badText is the 400 for a path or query that is not UTF-8, naming the
// query parameter when it is one (found only on this error path).
func badText(uri *fasthttp.URI) error {
	hint := "Percent-encode the UTF-8 bytes of the text (é is %C3%A9); other byte sequences are not text."
	if !validText(uri.PathOriginal()) {
		return problem.Invalid("The path is not valid UTF-8 once percent-decoded.", hint)
	}
	for _, pair := range strings.Split(string(uri.QueryString()), "&") {
		k, _, _ := strings.Cut(pair, "=")
		if !validText([]byte(pair)) {
			if !validText([]byte(k)) {
				return problem.Invalid("A query parameter name is not valid UTF-8 once percent-decoded.", hint)
			}
			return problem.Invalidf(hint, "Query parameter %q is not valid UTF-8 once percent-decoded.", k)
		}
	}
	return problem.Invalid("The query string is not valid UTF-8 once percent-decoded.", hint)
}

// routeTable knows, per path, the methods the app serves there: a path
// that is a fixed route of other methods (POST /api/world/plots/claim)
// answers 405 even when a parameter route of the asked method would match
// it (GET /api/world/plots/:plot_id), and every 405 names its Allow set.
type routeTable struct {
	once    sync.Once
	fixed   map[string]string // fixed path → Allow value
	methods map[string]uint16 // fixed path → method bits
	routes  []fiber.Route
}

func (t *routeTable) load(app *fiber.App) *routeTable {
	t.once.Do(func() {
		t.fixed, t.methods = map[string]string{}, map[string]uint16{}
		for _, r := range app.GetRoutes(true) {
			t.routes = append(t.routes, r)
			if len(r.Params) == 0 && !strings.ContainsAny(r.Path, ":*+") {
				p := trimSlash(r.Path)
				t.methods[p] |= methodBit(r.Method)
			}
		}
		for p, bits := range t.methods {
			t.fixed[p] = allowOf(bits)
		}
	})
	return t
}

// misrouted returns the Allow value when path is a fixed route that does
// not serve method.
func (t *routeTable) misrouted(method, path string) (string, bool) {
	bits, ok := t.methods[trimSlash(path)]
	if !ok || bits&methodBit(method) != 0 {
		return "", false
	}
	return t.fixed[trimSlash(path)], true
}

// allow is the Allow value for any path, matching parameter segments.
func (t *routeTable) allow(path string) string {
	var bits uint16
	want := strings.Split(trimSlash(path), "/")
	for _, r := range t.routes {
		if matchRoute(strings.Split(trimSlash(r.Path), "/"), want) {
			bits |= methodBit(r.Method)
		}
	}
	return allowOf(bits)
}

func matchRoute(pattern, path []string) bool {
	if len(pattern) != len(path) {
		return false
	}
	for i, seg := range pattern {
		if strings.HasPrefix(seg, ":") {
			if path[i] == "" {
				return false
			}
			continue
		}
		if !strings.EqualFold(seg, path[i]) {
			return false
		}
	}
	return true
}

func trimSlash(p string) string {
	if len(p) > 1 && p[len(p)-1] == '/' {
		return p[:len(p)-1]
	}
	return p
}

var methodOrder = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions}

func methodBit(m string) uint16 {
	for i, o := range methodOrder {
		if m == o {
			return 1 << i
		}
	}
	return 0
}

func allowOf(bits uint16) string {
	var names []string
	for i, o := range methodOrder {
		if bits&(1<<i) != 0 {
			names = append(names, o)
		}
	}
	return strings.Join(names, ", ")
}

func methodNotAllowed(method, allow string) error {
	hint := "See /openapi.json for the methods each path accepts."
	if allow != "" {
		hint = "This path accepts " + allow + " (the Allow header lists them); see /openapi.json."
	}
	return &problem.Error{Kind: problem.KindMethodNotAllowed, Message: "This path does not accept " + method + ".", Hint: hint}
}
