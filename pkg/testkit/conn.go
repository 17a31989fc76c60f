package testkit

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// Conn is one keep-alive connection to a server driven with raw bytes:
// requests go out exactly as written (pipelined, in pieces, malformed),
// responses are read back in order.
type Conn struct {
	t   testing.TB
	Raw net.Conn
	br  *bufio.Reader
}

// Dial opens a connection to addr (host:port), closed when the test ends.
func Dial(t testing.TB, addr string) *Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return Over(t, c, 4096)
}

// Over drives a connection opened otherwise (another dialer), reading it
// through a buffer of readBuffer bytes; it is closed when the test ends.
func Over(t testing.TB, c net.Conn, readBuffer int) *Conn {
	t.Cleanup(func() { _ = c.Close() })
	return &Conn{t: t, Raw: c, br: bufio.NewReaderSize(c, readBuffer)}
}

// Send writes raw as it is.
func (c *Conn) Send(raw string) {
	c.t.Helper()
	if _, err := io.WriteString(c.Raw, raw); err != nil {
		c.t.Fatal(err)
	}
}

// Read reads the next response, the answer to a request of method (a
// HEAD's has no body), and its whole body, within 20 s.
func (c *Conn) Read(method string) (*http.Response, []byte) {
	c.t.Helper()
	_ = c.Raw.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(c.br, &http.Request{Method: method})
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return resp, body
}

// Closed reports whether the server closed the connection without a
// further byte within d.
func (c *Conn) Closed(d time.Duration) bool {
	_ = c.Raw.SetReadDeadline(time.Now().Add(d))
	n, err := c.br.Read(make([]byte, 1))
	return n == 0 && err == io.EOF
}

// AwaitAnswer waits (20 s at most) for the first byte of the next
// response, leaving it to Read: the server has begun to answer.
func (c *Conn) AwaitAnswer() {
	c.t.Helper()
	_ = c.Raw.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, err := c.br.Peek(1); err != nil {
		c.t.Fatal(err)
	}
}
