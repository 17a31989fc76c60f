package embedded

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
)

// WriteGate stands between several processes and one embedded FerretDB and
// runs their write commands one at a time. FerretDB v1 carries out an
// update, a findAndModify or a delete as a query and then a write by _id,
// so two connections can both match a version guard and both write: one
// process keeps its writes apart with its own locks (mongox.Locks), but
// replicas in processes of their own (make cluster) cannot. Through the
// gate a guarded write is atomic across connections, as on MongoDB. Reads
// pass side by side.
//
// The lock is per database: FerretDB keeps each database in a file of its
// own, and a guarded write only ever races writes to its own collection,
// so one service's writes (or the bulletin's lease renewals) never wait in
// line behind another's.
type WriteGate struct {
	ln     net.Listener
	target string
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	writes map[string]*sync.Mutex // per database
	closed bool
}

// NewWriteGate listens on addr ("127.0.0.1:0": a free port) and forwards
// to the MongoDB-wire server at target (host:port).
func NewWriteGate(addr, target string) (*WriteGate, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	g := &WriteGate{ln: ln, target: target, conns: map[net.Conn]struct{}{}, writes: map[string]*sync.Mutex{}}
	g.wg.Add(1)
	go g.serve()
	return g, nil
}

// URI is the MongoDB URI of the gate, with the options of uri (the server's).
func (g *WriteGate) URI(uri string) string {
	u, err := url.Parse(uri)
	if err != nil {
		return "mongodb://" + g.ln.Addr().String() + "/"
	}
	u.Host = g.ln.Addr().String()
	return u.String()
}

// Close stops listening and closes every connection through the gate.
func (g *WriteGate) Close() {
	_ = g.ln.Close()
	g.mu.Lock()
	g.closed = true
	for c := range g.conns {
		_ = c.Close()
	}
	g.mu.Unlock()
	g.wg.Wait()
}

func (g *WriteGate) serve() {
	defer g.wg.Done()
	for {
		client, err := g.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", g.target)
		if err != nil {
			_ = client.Close()
			continue
		}
		if !g.track(client, server) {
			return
		}
		g.wg.Add(1)
		go func() {
			defer g.wg.Done()
			g.relay(client, server)
		}()
	}
}

// track keeps the connections for Close; after Close it closes them.
func (g *WriteGate) track(conns ...net.Conn) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, c := range conns {
		if g.closed {
			_ = c.Close()
		} else {
			g.conns[c] = struct{}{}
		}
	}
	return !g.closed
}

func (g *WriteGate) untrack(conns ...net.Conn) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, c := range conns {
		delete(g.conns, c)
		_ = c.Close()
	}
}

// relay copies one connection's messages both ways. A write command takes
// the gate's lock, is sent on, and gives the lock back once its answer
// (responseTo = its requestID) came or the connection ended: taken and
// given back by the same loop, so no path can keep it.
func (g *WriteGate) relay(client, server net.Conn) {
	defer g.untrack(client, server)
	var waitFor atomic.Pointer[int32] // the write waiting for its answer
	answered := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			msg, err := readMessage(server)
			if err != nil {
				_ = client.Close()
				return
			}
			// the lock goes back before the answer is passed on: a client
			// slow to read holds nobody else up
			if id := waitFor.Load(); id != nil && *id == int32(binary.LittleEndian.Uint32(msg[8:12])) {
				select {
				case answered <- struct{}{}:
				default: // a second answer to one write (an exhaust stream)
				}
			}
			if _, err := client.Write(msg); err != nil {
				_ = server.Close()
				return
			}
		}
	}()
	for {
		msg, err := readMessage(client)
		if err != nil || !g.forward(server, msg, &waitFor, answered, done) {
			break
		}
	}
	_ = server.Close()
	<-done
}

// forward sends one client message on; a write holds the gate's lock
// until its answer came (or the server's side ended).
func (g *WriteGate) forward(server net.Conn, msg []byte, waitFor *atomic.Pointer[int32], answered, done chan struct{}) bool {
	if !isWrite(msg) {
		_, err := server.Write(msg)
		return err == nil
	}
	db, _ := databaseOf(msg[20:]) // without $db: the lock of ""
	lock := g.lockOf(db)
	lock.Lock()
	defer lock.Unlock()
	id := int32(binary.LittleEndian.Uint32(msg[4:8]))
	waitFor.Store(&id)
	defer waitFor.Store(nil)
	if _, err := server.Write(msg); err != nil {
		return false
	}
	select {
	case <-answered:
		return true
	case <-done:
		return false
	}
}

// lockOf is the write lock of database db.
func (g *WriteGate) lockOf(db string) *sync.Mutex {
	g.mu.Lock()
	defer g.mu.Unlock()
	l, ok := g.writes[db]
	if !ok {
		l = &sync.Mutex{}
		g.writes[db] = l
	}
	return l
}

// maxMessage is MongoDB's largest message (48 MB).
const maxMessage = 48 << 20

func readMessage(r io.Reader) ([]byte, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, err
	}
	n := int(binary.LittleEndian.Uint32(head[:]))
	if n < 16 || n > maxMessage {
		return nil, fmt.Errorf("a message of %d bytes", n)
	}
	msg := make([]byte, n)
	copy(msg, head[:])
	if _, err := io.ReadFull(r, msg[4:]); err != nil {
		return nil, err
	}
	return msg, nil
}

const (
	opMsg      = 2013
	moreToCome = 1 << 1
)

// readOnly are the commands that change nothing; every other command
// (insert, update, delete, findAndModify, createIndexes, drop, ...) is a
// write. (aggregate is read-only here: the world never writes with $out
// or $merge.)
var readOnly = map[string]bool{
	"find": true, "getMore": true, "aggregate": true, "count": true, "distinct": true,
	"listCollections": true, "listIndexes": true, "listDatabases": true, "ping": true,
	"hello": true, "isMaster": true, "ismaster": true, "buildInfo": true, "buildinfo": true,
	"killCursors": true, "endSessions": true, "getParameter": true, "saslStart": true,
	"saslContinue": true, "collStats": true, "dbStats": true, "serverStatus": true,
	"connectionStatus": true, "getLog": true, "explain": true, "dataSize": true,
}

// isWrite tells whether a client's message is a write command that waits
// for its answer: an OP_MSG whose body's first field names a command that
// is not read-only, without moreToCome (nothing would answer it).
func isWrite(msg []byte) bool {
	if binary.LittleEndian.Uint32(msg[12:16]) != opMsg || len(msg) < 21 {
		return false
	}
	if binary.LittleEndian.Uint32(msg[16:20])&moreToCome != 0 {
		return false
	}
	name, err := commandName(msg[20:])
	return err == nil && !readOnly[name]
}

// commandName is the first field name of the body section (kind 0) of an
// OP_MSG's sections.
func commandName(sections []byte) (string, error) {
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
			doc := sections[5:size] // after the length and the first element's type
			for i, b := range doc {
				if b == 0 {
					return string(doc[:i]), nil
				}
			}
			break
		}
		sections = sections[size:]
	}
	return "", errors.New("no command in the message")
}
