package httpx

import (
	"strings"
	"testing"
)

// The front door takes only a plain document GET; every other shape goes
// to the full server, which answers or refuses it as any request.
func TestParseFront(t *testing.T) {
	t.Parallel()
	isRoute := func(p []byte) bool { return string(p) == "/doc" }
	const get = "GET /doc HTTP/1.1\r\nHost: x\r\n"
	cases := []struct {
		name, req string
		want      frontVerdict
		check     func(frontRequest) bool
	}{
		{"a document GET", get + "\r\n", frontServe, nil},
		{"its headers read, any case, values trimmed", get + "accept-ENCODING:  gzip, br \r\nIf-None-Match: \"t\"\r\nX-Request-Id:\tabc\r\nUser-Agent: curl\r\n\r\n", frontServe,
			func(r frontRequest) bool {
				return string(r.acceptEncoding) == "gzip, br" && string(r.ifNoneMatch) == `"t"` && string(r.requestID) == "abc"
			}},
		{"the size stops at the blank line", get + "\r\nGET /doc HTTP/1.1\r\n", frontServe,
			func(r frontRequest) bool { return r.size == len(get)+2 && string(r.path) == "/doc" }},
		{"keep-alive asked for", get + "Connection: Keep-Alive\r\n\r\n", frontServe, nil},
		{"a request line still arriving", "GET /do", frontMore, nil},
		{"the method still arriving", "GE", frontMore, nil},
		{"headers still arriving", get + "Accept-Enc", frontMore, nil},
		{"the blank line still arriving", get + "\r", frontMore, nil},
		{"another method", "POST /doc HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", frontPass, nil},
		{"another method still arriving", "PO", frontPass, nil},
		{"HEAD", "HEAD /doc HTTP/1.1\r\nHost: x\r\n\r\n", frontPass, nil},
		{"HTTP/1.0", "GET /doc HTTP/1.0\r\nHost: x\r\n\r\n", frontPass, nil},
		{"a query", "GET /doc?x=1 HTTP/1.1\r\nHost: x\r\n\r\n", frontPass, nil},
		{"another path", "GET /other HTTP/1.1\r\nHost: x\r\n\r\n", frontPass, nil},
		{"an absolute target", "GET http://x/doc HTTP/1.1\r\nHost: x\r\n\r\n", frontPass, nil},
		{"two spaces", "GET  /doc HTTP/1.1\r\nHost: x\r\n\r\n", frontPass, nil},
		{"no Host", "GET /doc HTTP/1.1\r\n\r\n", frontPass, nil},
		{"two Hosts", get + "Host: y\r\n\r\n", frontPass, nil},
		{"a Content-Length", get + "Content-Length: 0\r\n\r\n", frontPass, nil},
		{"a Transfer-Encoding", get + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", frontPass, nil},
		{"an Expect", get + "Expect: 100-continue\r\n\r\n", frontPass, nil},
		{"an Upgrade", get + "Connection: keep-alive\r\nUpgrade: websocket\r\n\r\n", frontPass, nil},
		{"Connection: close", get + "Connection: close\r\n\r\n", frontPass, nil},
		{"Accept-Encoding twice", get + "Accept-Encoding: gzip\r\nAccept-Encoding: identity\r\n\r\n", frontPass, nil},
		{"If-None-Match twice", get + "If-None-Match: \"a\"\r\nIf-None-Match: \"b\"\r\n\r\n", frontPass, nil},
		{"X-Request-Id twice", get + "X-Request-Id: a\r\nX-Request-Id: b\r\n\r\n", frontPass, nil},
		{"a bare LF ending a header", get + "Accept: */*\n\r\n", frontPass, nil},
		{"a bare LF ending the request line", "GET /doc HTTP/1.1\nHost: x\r\n\r\n", frontPass, nil},
		{"a folded header", get + "Accept: a\r\n b\r\n\r\n", frontPass, nil},
		{"a space before the colon", get + "Accept : a\r\n\r\n", frontPass, nil},
		{"no colon", get + "Accept\r\n\r\n", frontPass, nil},
		{"an empty name", get + ": a\r\n\r\n", frontPass, nil},
		{"a control character in a value", get + "Accept: a\x00b\r\n\r\n", frontPass, nil},
		{"a CR in a value", get + "Accept: a\rb\r\n\r\n", frontPass, nil},
		{"DEL in a value", get + "Accept: a\x7f\r\n\r\n", frontPass, nil},
		{"too many headers", get + strings.Repeat("A: b\r\n", frontMaxHeaders+1) + "\r\n", frontPass, nil},
		{"as many headers as allowed", get + strings.Repeat("A: b\r\n", frontMaxHeaders-1) + "\r\n", frontServe, nil},
	}
	for _, c := range cases {
		r, got := parseFront([]byte(c.req), isRoute)
		if got != c.want {
			t.Errorf("%s: verdict %d, want %d", c.name, got, c.want)
			continue
		}
		if c.check != nil && !c.check(r) {
			t.Errorf("%s: read %+v", c.name, r)
		}
	}
}

func FuzzParseFront(f *testing.F) {
	f.Add([]byte("GET /doc HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n"))
	f.Add([]byte("GET /doc HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"))
	isRoute := func(p []byte) bool { return string(p) == "/doc" }
	f.Fuzz(func(t *testing.T, b []byte) {
		r, v := parseFront(b, isRoute)
		if v != frontServe {
			return
		}
		// A request taken is a whole one, of the route, ending in a blank line.
		if r.size < 4 || r.size > len(b) || string(b[r.size-4:r.size]) != "\r\n\r\n" || string(r.path) != "/doc" {
			t.Fatalf("took %q as %+v", b, r)
		}
		for _, line := range strings.Split(strings.ToLower(string(b[:r.size])), "\r\n") {
			if strings.HasPrefix(line, "content-length:") || strings.HasPrefix(line, "transfer-encoding:") {
				t.Fatalf("took a request with a body: %q", b)
			}
		}
	})
}
