package httpx

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Serve serves app on ln until the app shuts down, as every host does:
// connections refused with a 413 drain the upload before closing
// (lingeringListener), and on an app with document routes a connection is
// read first by the front door.
//
// The front door answers document GETs (DocumentGET) itself, request after
// request, for as long as a connection asks for nothing else: a reader of
// the bulletin (a board polling it, a cache, a load balancer's check) never
// reaches fasthttp, whose per-request work (header parsing into maps, its
// connection tracking, deadlines, buffered writer) was most of the time a
// 30 KB document took beyond the kernel's own, measured against nginx with
// hack/bench/bulletin-vs-nginx.sh. The first request of any other kind,
// or in any other shape (see parseFront), hands the connection with the
// bytes already read to the full server for the rest of its life, so the
// front door never has to agree with it on anything but where a request
// starts. What the chain gives every request stays: the request id, exact
// metrics under the route's label, the sampled access line.
//
// An app without document routes (every service but the bulletin, every
// admin port) has nothing for the front door to answer: its connections go
// straight to the full server, which then reads no byte twice. So do an
// app's whose Options turned the front door off.
func Serve(app *fiber.App, ln net.Listener) error {
	return app.Listener(listenerFor(app, ln))
}

// listenerFor is the listener the full server of app accepts from: ln
// behind a lingeringListener, and behind the front door when app has
// document routes to answer there (registered before Serve).
func listenerFor(app *fiber.App, ln net.Listener) net.Listener {
	lingering := lingeringListener(ln)
	v, ok := fastApps.Load(app)
	if !ok {
		return lingering
	}
	routes := v.(*fastRoutes)
	if !routes.frontDoor || !routes.any() {
		lingering.unused = newUnusedConns()
		routes.unused.Store(lingering.unused)
		return lingering
	}
	srv := app.Server()
	idle := srv.IdleTimeout
	if idle <= 0 {
		idle = srv.ReadTimeout
	}
	door := newFrontDoor(lingering, routes, frontTimeouts{read: srv.ReadTimeout, write: srv.WriteTimeout, idle: idle})
	routes.door.Store(door)
	return door
}

// Shutdown stops app as its ShutdownWithTimeout does (no new connections,
// idle ones closed, requests in progress finished), the answers its front
// door is writing included, all within timeout. Connections that never
// sent a request close at once, with a front door or without (unusedConns).
func Shutdown(app *fiber.App, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	v, ok := fastApps.Load(app)
	if ok {
		if u := v.(*fastRoutes).unused.Load(); u != nil {
			u.closeAll()
		}
	}
	err := app.ShutdownWithTimeout(timeout)
	if ok {
		if door := v.(*fastRoutes).door.Load(); door != nil {
			_ = door.Close()
			if werr := door.wait(deadline); err == nil {
				err = werr
			}
		}
	}
	return err
}

type frontTimeouts struct{ read, write, idle time.Duration }

// frontDoor is the listener the full server accepts from: it accepts every
// connection itself and hands over those it does not keep.
type frontDoor struct {
	inner    net.Listener // a lingeringListener
	routes   *fastRoutes
	timeouts frontTimeouts
	isRoute  func(path []byte) bool

	handoff   chan *lingerConn
	acceptErr chan error
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
	closing   atomic.Bool

	mu    sync.Mutex
	conns map[*lingerConn]struct{} // kept by the front door, for Close
}

func newFrontDoor(inner net.Listener, routes *fastRoutes, t frontTimeouts) *frontDoor {
	d := &frontDoor{inner: inner, routes: routes, timeouts: t,
		handoff: make(chan *lingerConn), acceptErr: make(chan error, 1), done: make(chan struct{}),
		conns: map[*lingerConn]struct{}{}}
	d.isRoute = func(path []byte) bool {
		_, ok := routes.lookup(path)
		return ok
	}
	go d.acceptLoop()
	return d
}

func (d *frontDoor) acceptLoop() {
	var backoff time.Duration
	for {
		c, err := d.inner.Accept()
		if err != nil && outOfResources(err) && !d.closing.Load() {
			// Out of file descriptors or a connection gone before it was
			// taken: wait and go on, as net/http does, rather than end the
			// server (fasthttp's own loop stops on any such error).
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			d.routes.base.Warn("accepting connections", slog.String("error", err.Error()), slog.Duration("retry_in", backoff))
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		if err != nil {
			select {
			case d.acceptErr <- err:
			case <-d.done:
			}
			return
		}
		lc := c.(*lingerConn)
		if !d.keep(lc) {
			_ = lc.Close()
			continue
		}
		go d.serveConn(lc)
	}
}

// outOfResources is an accept error that passes: the process or system
// out of file descriptors, or a connection aborted before accept took it.
func outOfResources(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) || errors.Is(err, syscall.ECONNABORTED)
}

// Accept returns the next connection handed over to the full server.
func (d *frontDoor) Accept() (net.Conn, error) {
	select {
	case c := <-d.handoff:
		return c, nil
	case err := <-d.acceptErr:
		return nil, err
	case <-d.done:
		return nil, net.ErrClosed
	}
}

// Close stops accepting and ends the connections the front door keeps
// once their current answer is written (they wait for a next request).
func (d *frontDoor) Close() error {
	d.closeOnce.Do(func() {
		d.closing.Store(true)
		close(d.done)
		d.closeErr = d.inner.Close()
		d.mu.Lock()
		defer d.mu.Unlock()
		for c := range d.conns {
			_ = c.Conn.SetReadDeadline(time.Unix(1, 0))
		}
	})
	return d.closeErr
}

func (d *frontDoor) Addr() net.Addr { return d.inner.Addr() }

// wait waits until every connection the front door kept has ended (after
// Close: the idle ones at once, the others once their answer is written),
// or until deadline.
func (d *frontDoor) wait(deadline time.Time) error {
	for {
		d.mu.Lock()
		n := len(d.conns)
		d.mu.Unlock()
		if n == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d connections still answering at the front door", n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (d *frontDoor) keep(c *lingerConn) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closing.Load() {
		return false
	}
	d.conns[c] = struct{}{}
	return true
}

func (d *frontDoor) release(c *lingerConn) {
	d.mu.Lock()
	delete(d.conns, c)
	d.mu.Unlock()
}

// serveConn answers document GETs on c until it closes or asks for
// something else, then hands it over with what was read of that request.
func (d *frontDoor) serveConn(c *lingerConn) {
	handOver := false
	defer func() {
		if r := recover(); r != nil {
			d.routes.base.Error("panic", slog.String("panic", fmt.Sprint(r)), slog.String("stack", string(debug.Stack())))
			handOver = false
		}
		d.release(c)
		if !handOver {
			_ = c.Close()
			return
		}
		select {
		case d.handoff <- c:
		case <-d.done:
			_ = c.Close()
		}
	}()
	fc := frontConn{door: d, conn: c, in: make([]byte, frontBufferSize)}
	if sc, ok := c.Conn.(syscall.Conn); ok {
		fc.raw, _ = sc.SyscallConn() // nil: bodies are written from memory
	}
	handOver = fc.serve()
}

// frontBufferSize bounds a request the front door reads: a document GET
// is a few hundred bytes; a longer header block goes to the full server.
const frontBufferSize = 4 << 10

// frontConn is one connection at the front door.
type frontConn struct {
	door    *frontDoor
	conn    *lingerConn
	in      []byte
	have    int       // bytes of in read and not yet answered
	out     []byte    // the response header being written
	iov     [2][]byte // header and body of a writev
	raw     syscall.RawConn
	sender  fileSender
	readBy  time.Time
	writeBy time.Time
}

// serve answers requests until the connection ends (false) or is to be
// handed over (true, the unanswered bytes left in conn.pending).
func (f *frontConn) serve() bool {
	wait := f.door.timeouts.read // for the first request, as the full server
	var started time.Time        // when the request being read began
	for {
		if f.have > 0 {
			req, verdict := parseFront(f.in[:f.have], f.door.isRoute)
			if verdict == frontServe {
				switch f.answer(req) {
				case answerWritten:
					f.have = copy(f.in, f.in[req.size:f.have])
					wait, started = f.door.timeouts.idle, time.Now()
					continue
				case answerFailed, answerLast:
					return false
				}
				verdict = frontPass // no document yet: its app route answers
			}
			if verdict == frontPass || f.have == len(f.in) {
				f.conn.pending = f.in[:f.have]
				return true
			}
		}
		if f.door.closing.Load() {
			return false
		}
		if f.have == 0 {
			f.deadline(time.Now(), wait)
		} else {
			f.deadline(started, f.door.timeouts.read)
		}
		if f.door.closing.Load() { // Close may have set this connection's deadline before this did
			return false
		}
		n, err := f.conn.Conn.Read(f.in[f.have:])
		if f.have == 0 && n > 0 {
			// The request's time starts with its first byte, as the full
			// server's does: the idle wait before it is not the request's.
			started = time.Now()
		}
		f.have += n
		if err != nil {
			// The end of the connection or its deadline: closed without an
			// answer, as the full server does (serverErrors).
			return false
		}
	}
}

// deadline moves the read deadline to from+timeout (none for a timeout of
// zero, as the full server), unless it is already within a second of it:
// one system call a second rather than one a request.
func (f *frontConn) deadline(from time.Time, timeout time.Duration) {
	var at time.Time
	if timeout > 0 {
		at = from.Add(timeout)
	}
	if d := at.Sub(f.readBy); d < time.Second && d > -time.Second && at.IsZero() == f.readBy.IsZero() {
		return
	}
	if f.conn.Conn.SetReadDeadline(at) == nil {
		f.readBy = at
	}
}

// currentDocument calls current; a panic declines, so that the full
// server's fast path meets it again and answers INTERNAL_ERROR, logged.
func currentDocument(current func() *Document) (d *Document) {
	defer func() {
		if recover() != nil {
			d = nil
		}
	}()
	return current()
}

type answerResult int

const (
	answerWritten  answerResult = iota
	answerDeclined              // no document yet
	answerFailed                // the connection broke: close it
	answerLast                  // written with Connection: close (Drain): close it
)

// answer writes the response to req, with the request's metrics and
// access line.
func (f *frontConn) answer(req frontRequest) answerResult {
	start := time.Now()
	route, ok := f.door.routes.lookup(req.path)
	if !ok {
		return answerDeclined
	}
	doc := currentDocument(route.current)
	if doc == nil {
		return answerDeclined
	}
	var drawn [16]byte
	id := req.requestID
	if len(id) == 0 || len(id) > 64 {
		drawRequestID(&drawn)
		id = drawn[:]
	}
	if t := f.door.timeouts.write; t > 0 {
		if at := start.Add(t); at.Sub(f.writeBy) > time.Second {
			if f.conn.Conn.SetWriteDeadline(at) == nil {
				f.writeBy = at
			}
		}
	}
	// Counted and logged before it leaves, as on the full server: a client
	// that read its answer finds it in the metrics.
	closing := f.door.routes.draining.Load()
	status, body := f.header(start, doc, req, id, closing)
	f.door.routes.done(fiber.MethodGet, route.path, status, id, time.Since(start))
	if err := f.send(body); err != nil {
		return answerFailed
	}
	if closing {
		return answerLast
	}
	return answerWritten
}
