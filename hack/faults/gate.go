package faults

import (
	"io"
	"net"
	"sync"
)

// Gate is a TCP forwarder between the services and a server that can cut
// the way through: while cut, open connections are closed and new ones are
// closed as soon as they arrive — the server unreachable as a network
// partition or a crashed server makes it, where SIGSTOP makes it hang.
type Gate struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	cut   bool
	conns map[net.Conn]struct{}
}

// NewGate listens on a free loopback port and forwards to target.
func NewGate(target string) (*Gate, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	g := &Gate{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	go g.serve()
	return g, nil
}

// Addr is the address to connect to instead of the target.
func (g *Gate) Addr() string { return g.ln.Addr().String() }

// Cut closes every connection through the gate and refuses new ones until Mend.
func (g *Gate) Cut() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.cut = true
	for c := range g.conns {
		_ = c.Close()
	}
}

// Mend lets connections through again.
func (g *Gate) Mend() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.cut = false
}

// Close stops listening and closes every connection.
func (g *Gate) Close() {
	_ = g.ln.Close()
	g.Cut()
}

func (g *Gate) serve() {
	for {
		c, err := g.ln.Accept()
		if err != nil {
			return
		}
		go g.forward(c)
	}
}

func (g *Gate) forward(in net.Conn) {
	if !g.track(in) {
		_ = in.Close()
		return
	}
	defer g.untrack(in)
	out, err := net.Dial("tcp", g.target)
	if err != nil {
		return
	}
	if !g.track(out) {
		_ = out.Close()
		return
	}
	defer g.untrack(out)
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(out, in); done <- struct{}{} }()
	go func() { _, _ = io.Copy(in, out); done <- struct{}{} }()
	<-done // one way closed: close both, which ends the other copy
}

func (g *Gate) track(c net.Conn) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cut {
		return false
	}
	g.conns[c] = struct{}{}
	return true
}

func (g *Gate) untrack(c net.Conn) {
	_ = c.Close()
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.conns, c)
}
