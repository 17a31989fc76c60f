package httpx

import (
	"io"
	"os"
	"sync/atomic"

	"github.com/valyala/fasthttp"
)

// staticFileMin is the smallest body kept in a file for sendfile. Below it
// the copy into the write buffer costs less than a second system call, and
// fasthttp writes header and body in one write.
// It must stay above fasthttp's 8 KiB (maxSmallFileSize): only then is
// the header flushed alone before the body, the write SendStatic marks
// MSG_MORE; the line below fails to compile otherwise.
const staticFileMin = 16 << 10

const _ = uint(staticFileMin - (8<<10 + 1))

// StaticBody is a response body that never changes once built (a rendered
// document served to every reader). A large one is also kept in an
// in-memory file, so that SendStatic hands it to the kernel with sendfile:
// no copy into the connection's write buffer and none into the socket,
// which is where a large GET spent most of its time. Sending the header
// and a 16-128 KiB body in one writev from memory instead (one system call
// rather than two) was measured with hack/bench/bulletin-vs-nginx.sh and
// cost more CPU per request (about 10.7 against 9.6 µs at 36 KB): the
// copy into the socket outweighs the call it saves.
//
// The file is shared by every response that sends it (each sends with its
// own offset) and closed once the owner called Retire and the last
// response using it ended; a response that comes later sends the bytes.
type StaticBody struct {
	data []byte
	file *os.File     // nil: small, or no in-memory file on this system
	fd   int          // file's descriptor, for sendfile
	refs atomic.Int64 // the owner's reference plus one per response sending the file
}

// NewStaticBody keeps b, which the caller must never modify afterwards.
// Without an in-memory file (small body, another system, or the system
// refusing one) the body is still served, from memory.
func NewStaticBody(b []byte) *StaticBody { return newStaticBody(b, memFile) }

// newStaticDocumentBody keeps b as NewStaticBody does, in an unlinked file
// of the temporary directory when it takes one (see tempFile). It is for
// the few bodies every reader asks for (a Document), which the directory
// (an emptyDir on Kubernetes, of bounded size) can hold.
func newStaticDocumentBody(b []byte) *StaticBody {
	return newStaticBody(b, func(b []byte) *os.File {
		if f := tempFile(b); f != nil {
			return f
		}
		return memFile(b)
	})
}

func newStaticBody(b []byte, keep func([]byte) *os.File) *StaticBody {
	s := &StaticBody{data: b}
	s.refs.Store(1)
	if len(b) >= staticFileMin {
		s.file = keep(b)
		if s.file != nil {
			s.fd = int(s.file.Fd())
		}
	}
	return s
}

// Bytes is the body.
func (s *StaticBody) Bytes() []byte { return s.data }

// Retire gives up the owner's reference: the file closes once no response
// sends it any more. Call it when the body is replaced; SendStatic keeps
// working with a retired body (from memory).
func (s *StaticBody) Retire() { s.release() }

// acquire takes a reference for one response, false once the file is
// closed or closing.
func (s *StaticBody) acquire() bool {
	if s.file == nil {
		return false
	}
	for {
		n := s.refs.Load()
		if n <= 0 {
			return false
		}
		if s.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

func (s *StaticBody) release() {
	if s.refs.Add(-1) == 0 && s.file != nil {
		_ = s.file.Close()
	}
}

// SendStatic sets the response body to s. A GET on a connection of a
// lingeringListener sends a body with a file by sendfile, header and body
// in one TCP segment when they fit; anything else (HEAD, a small body, a
// connection of another kind) gets the bytes. In a Fiber handler, pass
// c.Context().
func SendStatic(ctx *fasthttp.RequestCtx, s *StaticBody) {
	conn, ok := ctx.Conn().(*lingerConn)
	if !ok || !ctx.IsGet() || !s.acquire() {
		ctx.Response.SetBodyRaw(s.data)
		return
	}
	st := &staticStream{body: s, conn: conn}
	// fasthttp flushes the header just before it copies a body stream over
	// 8 KiB: the connection holds that write back (MSG_MORE) for the body.
	conn.headerBeforeFile.Store(true)
	ctx.Response.SetBodyStream(st, len(s.data))
}

// staticStream is one response's reading of a StaticBody. The connection's
// ReadFrom recognises it and sends the rest with sendfile; Read serves
// anyone else (a middleware reading the body) from memory.
type staticStream struct {
	body   *StaticBody
	conn   *lingerConn
	off    int
	closed bool
}

func (r *staticStream) Read(p []byte) (int, error) {
	if r.off >= len(r.body.data) {
		return 0, io.EOF
	}
	n := copy(p, r.body.data[r.off:])
	r.off += n
	return n, nil
}

// Close ends the response's use of the file (fasthttp closes a body stream
// once written, or when the response is reset).
func (r *staticStream) Close() error {
	if !r.closed {
		r.closed = true
		r.conn.headerBeforeFile.Store(false)
		r.body.release()
	}
	return nil
}
