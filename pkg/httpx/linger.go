package httpx

import (
	"io"
	"net"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
)

// Lingering close, as nginx does it (lingering_close, lingering_time,
// lingering_timeout). A body over the limit is refused as soon as its
// Content-Length is read, while the client is still sending it. Closing the
// socket with unread data makes the kernel answer with a reset, which
// throws away the 413 before the client reads it: Go, Python and Node
// clients report "broken pipe" or "connection reset" instead. So after the
// 413 is written the connection half-closes (the client sees the end of
// the answer) and the rest of the upload is read and dropped, up to a bound
// of bytes and time, before the socket closes.
const (
	lingerTime    = 30 * time.Second // at most this long in all
	lingerTimeout = 5 * time.Second  // at most this long without a byte
	lingerBytes   = 64 << 20         // at most this much dropped
	lingerConns   = 256              // at most this many at once; beyond, close at once
)

// lingeringListener wraps a listener so that connections refused with a
// 413 drain the rest of the upload before closing. Serve the app on it.
func lingeringListener(ln net.Listener) *lingerListener {
	return &lingerListener{Listener: ln, slots: make(chan struct{}, lingerConns)}
}

type lingerListener struct {
	net.Listener
	slots  chan struct{}
	unused *unusedConns // nil: not tracked (the front door reads them first)
}

func (l *lingerListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		lc := &lingerConn{Conn: c, slots: l.slots}
		if l.unused == nil {
			return lc, nil
		}
		if l.unused.add(lc) {
			lc.unused.Store(l.unused)
			return lc, nil
		}
		_ = c.Close() // the app is stopping
	}
}

type lingerConn struct {
	net.Conn
	slots  chan struct{}
	linger atomic.Bool
	// headerBeforeFile: the next write is a response header whose body
	// follows with sendfile (SendStatic).
	headerBeforeFile atomic.Bool
	// pending: bytes the front door read and handed over with the
	// connection, which reads return first.
	pending []byte
	// unused: the app's connections without a byte read yet, this one
	// among them until its first bytes (or its close)
	unused atomic.Pointer[unusedConns]
	// cut: the stop ended this connection before its first byte
	// (unusedConns.closeAll); no later read deadline lifts that.
	cut atomic.Bool
}

// stopReading cuts the connection's reads at once, and for good: the
// server's worker may take the connection only now and set its own read
// deadline, which must not give the connection its full read timeout back.
func (c *lingerConn) stopReading() {
	c.cut.Store(true)
	_ = c.Conn.SetReadDeadline(cutDeadline)
}

// cutDeadline is a cut connection's read deadline: long past.
var cutDeadline = time.Unix(1, 0)

// SetReadDeadline keeps a cut connection's deadline in the past. The cut
// is checked after the set, so a cut that lands while t is being set
// still wins.
func (c *lingerConn) SetReadDeadline(t time.Time) error {
	err := c.Conn.SetReadDeadline(t)
	if c.cut.Load() {
		return c.Conn.SetReadDeadline(cutDeadline)
	}
	return err
}

// SetDeadline sets both deadlines, the read one as SetReadDeadline does.
func (c *lingerConn) SetDeadline(t time.Time) error {
	if err := c.Conn.SetWriteDeadline(t); err != nil {
		return err
	}
	return c.SetReadDeadline(t)
}

func (c *lingerConn) Read(p []byte) (int, error) {
	if len(c.pending) > 0 {
		n := copy(p, c.pending)
		c.pending = c.pending[n:]
		return n, nil
	}
	n, err := c.Conn.Read(p)
	if n > 0 || err != nil {
		if u := c.unused.Load(); u != nil && c.unused.CompareAndSwap(u, nil) {
			u.used(c)
		}
	}
	return n, err
}

// Write sends a header announced by SendStatic with MSG_MORE, so that it
// leaves in the same segment as the start of its body.
func (c *lingerConn) Write(p []byte) (int, error) {
	if c.headerBeforeFile.Swap(false) {
		if sc, ok := c.Conn.(syscall.Conn); ok {
			return writeMore(sc, p)
		}
	}
	return c.Conn.Write(p)
}

// ReadFrom sends a SendStatic body of this connection with sendfile, and
// hands anything else to the connection's own ReadFrom (fasthttp's write
// buffer calls it for a body stream once it is flushed).
func (c *lingerConn) ReadFrom(r io.Reader) (int64, error) {
	c.headerBeforeFile.Store(false)
	if st, ok := r.(*staticStream); ok && st.conn == c {
		if sc, ok := c.Conn.(syscall.Conn); ok {
			return sendFile(sc, st.body, &st.off)
		}
	}
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(c.Conn, r)
}

// lingerOnClose asks Close to drain the rest of the request first.
func (c *lingerConn) lingerOnClose() { c.linger.Store(true) }

func (c *lingerConn) Close() error {
	if u := c.unused.Swap(nil); u != nil {
		u.used(c)
	}
	if !c.linger.Swap(false) {
		return c.Conn.Close()
	}
	select {
	case c.slots <- struct{}{}:
	default:
		return c.Conn.Close()
	}
	if hc, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		_ = hc.CloseWrite()
	}
	go func() {
		defer func() { <-c.slots }()
		c.drain()
		_ = c.Conn.Close()
	}()
	return nil
}

func (c *lingerConn) drain() {
	end := time.Now().Add(lingerTime)
	buf := make([]byte, 32<<10)
	for total := 0; total < lingerBytes; {
		deadline := time.Now().Add(lingerTimeout)
		if deadline.After(end) {
			deadline = end
		}
		_ = c.Conn.SetReadDeadline(deadline)
		n, err := c.Conn.Read(buf)
		total += n
		if err != nil {
			return // io.EOF: the client is done; a deadline: it took too long
		}
	}
}

// markLinger flags the request's connection for a lingering close, when it
// came through a lingeringListener.
func markLinger(ctx *fasthttp.RequestCtx) {
	if lc, ok := ctx.Conn().(*lingerConn); ok {
		lc.lingerOnClose()
	}
}
