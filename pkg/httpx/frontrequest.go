package httpx

import (
	"bytes"
	"strings"
)

// frontVerdict is what the front door does with the bytes it has read.
type frontVerdict int

const (
	frontMore  frontVerdict = iota // a document GET so far: read on
	frontServe                     // a whole document GET: answer it
	frontPass                      // anything else: the full server takes the connection
)

// frontRequest is a document GET as the front door takes it.
type frontRequest struct {
	path           []byte
	acceptEncoding []byte
	ifNoneMatch    []byte
	requestID      []byte
	size           int // bytes of the request line, headers and blank line
}

const frontMaxHeaders = 64

// parseFront reads the request at the start of b. It takes only the plain
// shape a document GET has: "GET <path> HTTP/1.1", a Host, no body and
// nothing that changes the connection (Content-Length, Transfer-Encoding,
// Expect, Upgrade, a Connection other than keep-alive), each header on one
// line of its own ending in CRLF, and Accept-Encoding, If-None-Match and
// X-Request-Id at most once. Whatever else, including a request the full
// server would refuse, is passed: there it is answered (or refused) as
// every other request is, so the front door never reads a request
// differently from it. isRoute says whether a path is a document's.
func parseFront(b []byte, isRoute func(path []byte) bool) (frontRequest, frontVerdict) {
	var r frontRequest
	line, rest, ok := cutLine(b)
	if !ok {
		if !bytes.HasPrefix(b, prefixGET) && !bytes.HasPrefix(prefixGET, b) {
			return r, frontPass
		}
		return r, frontMore
	}
	target, found := bytes.CutPrefix(line, prefixGET)
	if !found {
		return r, frontPass
	}
	target, found = bytes.CutSuffix(target, suffixHTTP11)
	if !found || !isRoute(target) {
		return r, frontPass
	}
	r.path = target
	hosts := 0
	for n := 0; ; n++ {
		if n > frontMaxHeaders {
			return r, frontPass
		}
		if len(rest) < 2 {
			return r, frontMore
		}
		if rest[0] == '\r' && rest[1] == '\n' {
			if hosts != 1 {
				return r, frontPass
			}
			r.size = len(b) - len(rest) + 2
			return r, frontServe
		}
		line, rest, ok = cutLine(rest)
		if !ok {
			return r, frontMore
		}
		name, value, ok := headerField(line)
		if !ok {
			return r, frontPass
		}
		var slot *[]byte
		switch {
		case equalFold(name, "host"):
			hosts++
			continue
		case equalFold(name, "accept-encoding"):
			slot = &r.acceptEncoding
		case equalFold(name, "if-none-match"):
			slot = &r.ifNoneMatch
		case equalFold(name, "x-request-id"):
			slot = &r.requestID
		case equalFold(name, "connection"):
			if !equalFold(value, "keep-alive") {
				return r, frontPass
			}
			continue
		case equalFold(name, "content-length"), equalFold(name, "transfer-encoding"),
			equalFold(name, "expect"), equalFold(name, "upgrade"):
			return r, frontPass
		default:
			continue
		}
		if *slot != nil {
			return r, frontPass
		}
		*slot = value
	}
}

var (
	prefixGET    = []byte("GET ")
	suffixHTTP11 = []byte(" HTTP/1.1")
)

// cutLine splits off a line ending in CRLF; a bare LF or CR inside the
// line makes it one the front door does not take (ok with a line holding
// it, which headerField and the request line refuse).
func cutLine(b []byte) (line, rest []byte, ok bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return nil, b, false
	}
	if i == 0 || b[i-1] != '\r' {
		return b[:i+1], b[i+1:], true // no CR before LF: refused by the callers
	}
	return b[:i-1], b[i+1:], true
}

// headerField splits "Name: value" with a token name and a value of
// visible characters, spaces and tabs (RFC 9110 §5); anything else is
// refused.
func headerField(line []byte) (name, value []byte, ok bool) {
	colon := bytes.IndexByte(line, ':')
	if colon <= 0 {
		return nil, nil, false
	}
	name = line[:colon]
	for _, c := range name {
		if !isTokenChar(c) {
			return nil, nil, false
		}
	}
	value = line[colon+1:]
	for _, c := range value {
		if c < 0x20 && c != '\t' || c == 0x7f {
			return nil, nil, false
		}
	}
	return name, bytes.Trim(value, " \t"), true
}

func isTokenChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// equalFold compares an ASCII header name or value with a lower-case word.
func equalFold(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := range len(b) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
