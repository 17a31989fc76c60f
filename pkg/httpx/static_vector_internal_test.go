package httpx

import (
	"bufio"
	"bytes"
	"log/slog"
	"net"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
)

// countingListener hands out connections that count the system calls
// writing to the socket: every Write, and every attempt of a raw write
// (sendmsg, sendfile, writev), each of which is one call while the socket
// has room.
type countingListener struct {
	net.Listener
	writes *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countingConn{TCPConn: c.(*net.TCPConn), writes: l.writes}, nil
}

type countingConn struct {
	*net.TCPConn
	writes *atomic.Int64
}

func (c countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.TCPConn.Write(p)
}

func (c countingConn) SyscallConn() (syscall.RawConn, error) {
	raw, err := c.TCPConn.SyscallConn()
	return countingRaw{RawConn: raw, writes: c.writes}, err
}

type countingRaw struct {
	syscall.RawConn
	writes *atomic.Int64
}

func (r countingRaw) Write(f func(fd uintptr) bool) error {
	return r.RawConn.Write(func(fd uintptr) bool {
		r.writes.Add(1)
		return f(fd)
	})
}

// A middle-sized body (16 to 128 KiB) leaves with its header in one system
// call: each extra call per response was a chance for the scheduler to
// wake, which is where the server lost to nginx on such bodies. The bytes
// and the framing stay exact over keep-alive responses.
func TestSendStaticWritesHeaderAndMiddleBodyInOneCall(t *testing.T) {
	for _, size := range []int{staticFileMin, 36 << 10, staticVectorMax} {
		body := NewStaticBody(document(size, 3))
		app := NewApp(Options{Service: "static-test", Logger: slog.New(slog.DiscardHandler)})
		app.Get("/doc", func(c *fiber.Ctx) error {
			SendStatic(c.Context(), body)
			return nil
		})
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		var writes atomic.Int64
		go func() { _ = app.Listener(LingeringListener(countingListener{Listener: ln, writes: &writes})) }()
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(conn)
		for i := range 3 {
			before := writes.Load()
			resp, got := exchange(t, conn, br, "GET")
			if resp.StatusCode != 200 || !bytes.Equal(got, body.Bytes()) {
				t.Fatalf("size %d, response %d: status %d, %d bytes, want the %d-byte body", size, i, resp.StatusCode, len(got), size)
			}
			if n := writes.Load() - before; n != 1 {
				t.Fatalf("size %d, response %d: %d socket writes, want 1 (header and body together)", size, i, n)
			}
		}
		_ = conn.Close()
		_ = app.ShutdownWithTimeout(5 * time.Second)
	}
}
