package httpx

import (
	"net"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
)

// header builds the header of the answer to req from doc in f.out, with
// the headers the full server gives it (ServeDocument), in its order: 304
// to a matching If-None-Match, else the encoding the request accepts. It
// returns the status and the body to send (nil: none).
func (f *frontConn) header(now time.Time, doc *Document, req frontRequest, id []byte, closing bool) (int, *StaticBody) {
	h := f.out[:0]
	if len(req.ifNoneMatch) > 0 && ETagMatches(string(req.ifNoneMatch), string(doc.etag)) {
		h = append(h, "HTTP/1.1 304 Not Modified\r\nDate: "...)
		h = appendDate(h, now)
		f.out = appendDocumentHeaders(h, doc, id, closing)
		return fiber.StatusNotModified, nil
	}
	body, gz := doc.body(string(req.acceptEncoding))
	h = append(h, "HTTP/1.1 200 OK\r\nDate: "...)
	h = appendDate(h, now)
	h = append(h, "\r\nContent-Type: "+ContentTypeJSON...)
	if gz {
		h = append(h, "\r\nContent-Encoding: gzip"...)
	}
	h = append(h, "\r\nContent-Length: "...)
	h = strconv.AppendInt(h, int64(len(body.data)), 10)
	f.out = appendDocumentHeaders(h, doc, id, closing)
	return fiber.StatusOK, body
}

// send writes the header in f.out and body. A body kept in a file leaves
// by sendfile after the header (written with MSG_MORE, so both share a
// segment); a smaller one is written with the header in one call.
func (f *frontConn) send(body *StaticBody) error {
	h := f.out
	defer f.keepOut()
	if body == nil {
		_, err := f.conn.Conn.Write(h)
		return err
	}
	if f.raw != nil && body.acquire() {
		defer body.release()
		_, err := f.sender.send(f.raw, h, body, 0)
		return err
	}
	// One writev of both, from where they are: a copy of the body into
	// a buffer made per answer was a garbage collector's worth of work.
	f.iov = [2][]byte{h, body.data}
	bufs := net.Buffers(f.iov[:])
	_, err := bufs.WriteTo(f.conn.Conn)
	f.iov = [2][]byte{}
	return err
}

// appendDocumentHeaders ends a header block with what every answer of a
// document carries (and Connection: close for the last of a connection).
func appendDocumentHeaders(h []byte, doc *Document, id []byte, closing bool) []byte {
	if closing {
		h = append(h, "\r\nConnection: close"...)
	}
	h = append(h, "\r\nX-Request-Id: "...)
	h = append(h, id...)
	h = append(h, "\r\nEtag: "...)
	h = append(h, doc.etag...)
	h = append(h, "\r\nCache-Control: "...)
	h = append(h, doc.cacheControl...)
	return append(h, "\r\nVary: Accept-Encoding\r\n\r\n"...)
}

// keepOut keeps the header buffer for the next answer, unless it grew
// large (a long request id or tag): an idle connection holds no more than
// a header's worth.
func (f *frontConn) keepOut() {
	if cap(f.out) > 1<<10 {
		f.out = nil
	}
}

// httpDate is the Date header's value for one second.
type httpDate struct {
	unix int64
	text []byte
}

var currentDate atomic.Pointer[httpDate]

// appendDate appends now as an HTTP date (RFC 9110 §5.6.7), formatted once
// a second.
func appendDate(b []byte, now time.Time) []byte {
	d := currentDate.Load()
	if d == nil || d.unix != now.Unix() {
		d = &httpDate{unix: now.Unix(), text: now.UTC().AppendFormat(nil, "Mon, 02 Jan 2006 15:04:05 GMT")}
		currentDate.Store(d)
	}
	return append(b, d.text...)
}
