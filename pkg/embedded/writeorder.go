package embedded

import (
	"context"
	"encoding/binary"
	"net"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.mongodb.org/mongo-driver/x/bsonx/bsoncore"

	"sharedworld.dev/pkg/metrics"
)

// WriteOrder puts the write commands this process sends to its embedded
// FerretDB in line, one at a time per database, before they reach SQLite.
//
// FerretDB keeps each database in a SQLite file of its own, and SQLite lets
// one writer at a time into a file: a second writer finds the file locked
// and sleeps in SQLite's busy handler (1, 2, 5, 10 … 100 ms, again and
// again) until the lock is free. Under concurrent writes those sleeps, not
// the work, were most of a write's latency: a goroutine profile of the
// runner under load caught writers in sqliteDefaultBusyCallback →
// unixSleep, and the document locks and driver connections they held
// queued everyone behind them. On the embedded default this process is the
// only writer, so it can order its writes itself: a write waits here for
// the one before it to be answered (a Go mutex, no sleep), and SQLite never
// sees two writers of one file. Reads pass at once, whatever is being
// written. The gate is held from a write command's send until its answer
// is read, or the connection ends.
type WriteOrder struct {
	mu  sync.Mutex
	dbs map[string]*sync.Mutex
}

// writeWait is how long writes waited for their database's turn: the
// queue the write order keeps instead of SQLite's busy sleeps.
var writeWait = metrics.Register(prometheus.NewHistogramVec(prometheus.HistogramOpts{
	Name:    "sharedworld_embedded_write_wait_seconds",
	Help:    "Time a write command to the embedded database waited for the write before it on the same database to be answered, by database.",
	Buckets: []float64{.0001, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1},
}, []string{"database"}))

// NewWriteOrder returns an empty write order.
func NewWriteOrder() *WriteOrder { return &WriteOrder{dbs: map[string]*sync.Mutex{}} }

func (o *WriteOrder) lockOf(db string) *sync.Mutex {
	o.mu.Lock()
	defer o.mu.Unlock()
	l := o.dbs[db]
	if l == nil {
		l = &sync.Mutex{}
		o.dbs[db] = l
	}
	return l
}

// DialContext dials like a net.Dialer and orders the connection's writes:
// the MongoDB driver's dialer (options.Client().SetDialer).
func (o *WriteOrder) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &orderedConn{Conn: c, order: o}, nil
}

// orderedConn is one driver connection. The driver sends a command whole in
// one Write and reads its answer before it sends the next one, so the next
// whole message read after a write command is that command's answer.
type orderedConn struct {
	net.Conn
	order *WriteOrder
	// mu guards held and the framing of the answer stream.
	mu   sync.Mutex
	held *sync.Mutex // the database's gate while a write waits for its answer
	// head collects an answer's length prefix; left counts the bytes of the
	// answer still to come once the prefix is known.
	head [4]byte
	got  int
	left int
}

func (c *orderedConn) Write(p []byte) (int, error) {
	if db, ok := writeTarget(p); ok {
		gate := c.order.lockOf(db)
		start := time.Now()
		gate.Lock()
		writeWait.WithLabelValues(db).Observe(time.Since(start).Seconds())
		c.mu.Lock()
		c.release() // a write without an answer read (cannot happen with the driver)
		c.held = gate
		c.mu.Unlock()
	}
	n, err := c.Conn.Write(p)
	if err != nil {
		c.releaseLocked()
	}
	return n, err
}

func (c *orderedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	if c.held != nil && c.frame(p[:n]) {
		c.release()
	}
	if err != nil {
		c.release()
	}
	c.mu.Unlock()
	return n, err
}

func (c *orderedConn) Close() error {
	c.releaseLocked()
	return c.Conn.Close()
}

func (c *orderedConn) releaseLocked() {
	c.mu.Lock()
	c.release()
	c.mu.Unlock()
}

// release gives the database's gate back (c.mu held).
func (c *orderedConn) release() {
	if c.held != nil {
		c.held.Unlock()
		c.held = nil
	}
	c.got, c.left = 0, 0
}

// frame follows the answer stream through b and reports whether a whole
// message ended in it.
func (c *orderedConn) frame(b []byte) bool {
	for len(b) > 0 {
		if c.got < 4 {
			k := copy(c.head[c.got:], b)
			c.got += k
			b = b[k:]
			if c.got == 4 {
				c.left = int(binary.LittleEndian.Uint32(c.head[:])) - 4
			}
			continue
		}
		k := min(c.left, len(b))
		c.left -= k
		b = b[k:]
		if c.left <= 0 {
			c.got, c.left = 0, 0
			return true
		}
	}
	return false
}

// writeTarget names the database a write command of msg is for; false for
// reads and anything else.
func writeTarget(msg []byte) (string, bool) {
	if len(msg) < 21 || !isWrite(msg) {
		return "", false
	}
	body, ok := bodySection(msg[20:])
	if !ok {
		return "", false
	}
	v, err := bsoncore.Document(body).LookupErr("$db")
	if err != nil {
		return "", false
	}
	db, ok := v.StringValueOK()
	return db, ok
}

// bodySection is the body document (kind 0) of an OP_MSG's sections.
func bodySection(sections []byte) ([]byte, bool) {
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
			return sections[:size], true
		}
		// a document sequence: its size, then its identifier and documents
		sections = sections[size:]
	}
	return nil, false
}
