package httpx

import (
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gofiber/fiber/v2"
)

// write sends the answer to req from doc, with the headers the full server
// gives it (ServeDocument), in its order: 304 to a matching If-None-Match,
// else the encoding the request accepts. A body kept in a file leaves by
// sendfile after the header (written with MSG_MORE, so both share a
// segment); a smaller one is written with the header in one call.
func (f *frontConn) write(now time.Time, doc *Document, req frontRequest, id []byte) (status int, err error) {
	h := f.out[:0]
	if len(req.ifNoneMatch) > 0 && ETagMatches(string(req.ifNoneMatch), string(doc.etag)) {
		h = append(h, "HTTP/1.1 304 Not Modified\r\nDate: "...)
		h = appendDate(h, now)
		h = appendDocumentHeaders(h, doc, id)
		_, err = f.conn.Conn.Write(h)
		f.keepOut(h)
		return fiber.StatusNotModified, err
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
	h = appendDocumentHeaders(h, doc, id)
	sock, ok := f.conn.Conn.(syscall.Conn)
	if ok && body.acquire() {
		defer body.release()
		f.keepOut(h)
		if _, err = writeMore(sock, h); err != nil {
			return fiber.StatusOK, err
		}
		off := 0
		_, err = sendFile(sock, body, &off)
		return fiber.StatusOK, err
	}
	h = append(h, body.data...)
	_, err = f.conn.Conn.Write(h)
	f.keepOut(h)
	return fiber.StatusOK, err
}

// appendDocumentHeaders ends a header block with what every answer of a
// document carries.
func appendDocumentHeaders(h []byte, doc *Document, id []byte) []byte {
	h = append(h, "\r\nX-Request-Id: "...)
	h = append(h, id...)
	h = append(h, "\r\nEtag: "...)
	h = append(h, doc.etag...)
	h = append(h, "\r\nCache-Control: "...)
	h = append(h, doc.cacheControl...)
	return append(h, "\r\nVary: Accept-Encoding\r\n\r\n"...)
}

// keepOut keeps the header buffer for the next answer, unless a body made
// it large: an idle connection holds no more than a header's worth.
func (f *frontConn) keepOut(h []byte) {
	if cap(h) <= 1<<10 {
		f.out = h[:0]
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
