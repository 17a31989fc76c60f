package embedded

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"os"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.mongodb.org/mongo-driver/x/bsonx/bsoncore"

	"sharedworld.dev/pkg/metrics"
)

// WriteOrder puts the write commands this process sends to its embedded
// FerretDB in line, one line per database, before they reach SQLite.
//
// FerretDB keeps each database in a SQLite file of its own, and SQLite lets
// one writer at a time into a file: a second writer finds the file locked
// and sleeps in SQLite's busy handler (1, 2, 5, 10 … 100 ms, again and
// again) until the lock is free. Under concurrent writes those sleeps, not
// the work, were most of a write's latency: a goroutine profile of the
// runner under load caught writers in sqliteDefaultBusyCallback →
// unixSleep, and the document locks and driver connections they held
// queued everyone behind them. On the embedded default this process is the
// only writer, so it orders its writes itself: every write command for a
// database goes down that database's one connection (its line), where
// FerretDB takes them one after another as they come, without waiting for
// the sender to read each answer, and SQLite never sees two writers of one
// file. Reads stay on the driver's own connections and pass at once,
// whatever is being written.
type WriteOrder struct {
	mu    sync.Mutex
	addr  string
	lines map[string]*line
}

// NewWriteOrder returns a write order with no lines yet.
func NewWriteOrder() *WriteOrder { return &WriteOrder{lines: map[string]*line{}} }

// writeTime is how long writes took through their database's line, from
// sending to the answer: the queue the order keeps instead of SQLite's
// busy sleeps, and the write itself.
var writeTime = metrics.Register(prometheus.NewHistogramVec(prometheus.HistogramOpts{
	Name:    "sharedworld_embedded_write_seconds",
	Help:    "Time from sending a write command to the embedded database down its database's line to its answer (queue and write), by database.",
	Buckets: []float64{.0001, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1},
}, []string{"database"}))

// DialContext dials like a net.Dialer and sends the connection's write
// commands down their database's line: the MongoDB driver's dialer
// (options.Client().SetDialer).
func (o *WriteOrder) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	o.addr = addr
	o.mu.Unlock()
	return &orderedConn{Conn: c, order: o, closed: make(chan struct{})}, nil
}

func (o *WriteOrder) lineOf(db string) *line {
	o.mu.Lock()
	defer o.mu.Unlock()
	l := o.lines[db]
	if l == nil {
		l = &line{db: db, addr: o.addr, waiting: map[int32]chan answer{}}
		o.lines[db] = l
	}
	return l
}

// answer is a write's answer from its line, or why none will come.
type answer struct {
	msg []byte
	err error
}

// line is one database's connection for writes. Senders write whole
// commands under mu, so FerretDB reads them in the order sent; one reader
// hands each answer to its sender by responseTo (the driver's request ids
// are unique in the process).
type line struct {
	db, addr string
	mu       sync.Mutex
	conn     net.Conn
	waiting  map[int32]chan answer
}

// send puts msg on the line; the answer comes on the returned channel.
func (l *line) send(msg []byte) (<-chan answer, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil {
		c, err := net.DialTimeout("tcp", l.addr, 10*time.Second)
		if err != nil {
			return nil, err
		}
		l.conn = c
		go l.read(c)
	}
	id := int32(binary.LittleEndian.Uint32(msg[4:8]))
	ch := make(chan answer, 1)
	l.waiting[id] = ch
	_ = l.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := l.conn.Write(msg); err != nil {
		delete(l.waiting, id)
		l.breakLocked(l.conn, err)
		return nil, err
	}
	return ch, nil
}

// read hands answers to their senders until the connection ends.
func (l *line) read(c net.Conn) {
	for {
		msg, err := readMessage(c)
		if err != nil {
			l.mu.Lock()
			l.breakLocked(c, err)
			l.mu.Unlock()
			return
		}
		to := int32(binary.LittleEndian.Uint32(msg[8:12]))
		l.mu.Lock()
		ch := l.waiting[to]
		delete(l.waiting, to)
		l.mu.Unlock()
		if ch != nil {
			ch <- answer{msg: msg}
		}
	}
}

// breakLocked ends connection c (if it is still the line's) and fails the
// writes waiting on it: their outcome is unknown, as with a broken driver
// connection. The next send dials again.
func (l *line) breakLocked(c net.Conn, err error) {
	if l.conn != c {
		return
	}
	_ = c.Close()
	l.conn = nil
	for id, ch := range l.waiting {
		ch <- answer{err: err}
		delete(l.waiting, id)
	}
}

// orderedConn is one driver connection. The driver sends a command whole in
// one Write and reads its answer before it sends the next one; a write
// command goes down its database's line instead, and the next Reads return
// the line's answer.
type orderedConn struct {
	net.Conn
	order *WriteOrder
	// closed ends a wait for a line's answer: the driver gives up on a
	// command whose context is cancelled by closing its connection, which
	// ends a read of the socket but not a wait on a channel.
	closed    chan struct{}
	closeOnce sync.Once
	// mu guards what follows: the answer awaited from a line, the rest of
	// an answer being read, and the read deadline the driver set.
	mu       sync.Mutex
	awaited  <-chan answer
	sent     time.Time
	db       string
	rest     []byte
	deadline time.Time
}

func (c *orderedConn) Write(p []byte) (int, error) {
	db, ok := writeTarget(p)
	if !ok {
		return c.Conn.Write(p)
	}
	ch, err := c.order.lineOf(db).send(p)
	if err != nil {
		return 0, err
	}
	c.mu.Lock()
	c.awaited, c.sent, c.db, c.rest = ch, time.Now(), db, nil
	c.mu.Unlock()
	return len(p), nil
}

func (c *orderedConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	if len(c.rest) == 0 && c.awaited == nil {
		c.mu.Unlock()
		return c.Conn.Read(p)
	}
	if len(c.rest) == 0 {
		ans, err := c.await()
		if err != nil {
			c.mu.Unlock()
			return 0, err
		}
		c.rest = ans
	}
	n := copy(p, c.rest)
	c.rest = c.rest[n:]
	c.mu.Unlock()
	return n, nil
}

// await waits (c.mu held, released meanwhile) for the line's answer, up to
// the read deadline.
func (c *orderedConn) await() ([]byte, error) {
	ch, deadline, sent, db := c.awaited, c.deadline, c.sent, c.db
	c.mu.Unlock()
	var expired <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		expired = t.C
	}
	var ans answer
	select {
	case ans = <-ch:
	case <-expired:
		ans.err = os.ErrDeadlineExceeded
	case <-c.closed:
		ans.err = net.ErrClosed
	}
	c.mu.Lock()
	if ans.err == nil {
		writeTime.WithLabelValues(db).Observe(time.Since(sent).Seconds())
	}
	c.awaited = nil
	return ans.msg, ans.err
}

func (c *orderedConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return c.Conn.Close()
}

func (c *orderedConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	c.deadline = t
	c.mu.Unlock()
	return c.Conn.SetReadDeadline(t)
}

func (c *orderedConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	c.deadline = t
	c.mu.Unlock()
	return c.Conn.SetDeadline(t)
}

// errNoDatabase: a write command without $db (the driver always sends it).
var errNoDatabase = errors.New("a write command without $db")

// writeTarget names the database a write command of msg is for; false for
// reads and anything else.
func writeTarget(msg []byte) (string, bool) {
	if len(msg) < 21 || !isWrite(msg) {
		return "", false
	}
	db, err := databaseOf(msg[20:])
	return db, err == nil
}

// databaseOf is the $db of an OP_MSG's body section (kind 0).
func databaseOf(sections []byte) (string, error) {
	for len(sections) > 0 {
		kind := sections[0]
		sections = sections[1:]
		if len(sections) < 4 {
			break
		}
		size := int(binary.LittleEndian.Uint32(sections[:4]))
		if size < 5 || size > len(sections) {
			break
		}
		if kind == 0 {
			v, err := bsoncore.Document(sections[:size]).LookupErr("$db")
			if err != nil {
				return "", errNoDatabase
			}
			if db, ok := v.StringValueOK(); ok {
				return db, nil
			}
			return "", errNoDatabase
		}
		// a document sequence: its size covers its identifier and documents
		sections = sections[size:]
	}
	return "", errNoDatabase
}
