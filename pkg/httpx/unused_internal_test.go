package httpx

import (
	"errors"
	"net"
	"os"
	"testing"
	"time"
)

// The stop may cut a spare connection before the server's worker has
// taken it; the worker then sets its own read deadline (the full read
// timeout). The connection must stay cut: its first read times out at once.
func TestACutConnectionStaysCutWhenTheServerSetsItsDeadlineLater(t *testing.T) {
	for _, set := range []struct {
		name string
		call func(c *lingerConn, t time.Time) error
	}{
		{"SetReadDeadline", (*lingerConn).SetReadDeadline},
		{"SetDeadline", (*lingerConn).SetDeadline},
	} {
		t.Run(set.name, func(t *testing.T) {
			server, client := net.Pipe()
			t.Cleanup(func() { _ = server.Close(); _ = client.Close() })
			u := newUnusedConns()
			c := &lingerConn{Conn: server}
			if !u.add(c) {
				t.Fatal("a connection accepted before the stop must be tracked")
			}
			c.unused.Store(u)
			u.closeAll()
			if err := set.call(c, time.Now().Add(30*time.Second)); err != nil {
				t.Fatalf("deadline: %v", err)
			}
			readErr := make(chan error, 1)
			go func() {
				_, err := c.Read(make([]byte, 1))
				readErr <- err
			}()
			select {
			case err := <-readErr:
				if !errors.Is(err, os.ErrDeadlineExceeded) {
					t.Fatalf("read of a cut connection: %v, want a deadline exceeded", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("a cut connection's read waited for the deadline set after the cut")
			}
		})
	}
}

// A connection that is not cut keeps the deadline the server sets.
func TestAnUncutConnectionTakesTheServersDeadline(t *testing.T) {
	server, client := net.Pipe()
	t.Cleanup(func() { _ = server.Close(); _ = client.Close() })
	c := &lingerConn{Conn: server}
	if err := c.SetReadDeadline(time.Now().Add(time.Hour)); err != nil {
		t.Fatalf("deadline: %v", err)
	}
	go func() { _, _ = client.Write([]byte("x")) }()
	buf := make([]byte, 1)
	if n, err := c.Read(buf); err != nil || n != 1 || buf[0] != 'x' {
		t.Fatalf("read: %d %q %v", n, buf[:n], err)
	}
}
