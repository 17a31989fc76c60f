//go:build !cluster

// The local runner only: these send raw framing at its front door, which in
// the chart's world (-tags cluster) the Ingress controller answers itself.

package world_test

import (
	"net"
	"testing"
	"time"

	"sharedworld.dev/hack/world"
)

// HTTP edges an agent (or a proxy) may meet: a Transfer-Encoding other
// than chunked is refused, not read as chunked; two different
// Content-Lengths are refused at once, before any body (nobody waits for a
// body of the larger one); errors answered before the app carry an
// X-Request-Id like every other answer.
func TestHTTPEdges(t *testing.T) {
	w := start(t, world.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), AmbassadorToken: "edges-token-0123456789"})
	defer w.Stop(20 * time.Second)
	addr := w.URL[len("http://"):]

	resp, body := rawExchange(t, addr, "POST /api/world/tickets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunk\r\n\r\n2\r\n{}\r\n0\r\n\r\n")
	if resp.StatusCode != 400 || body["error"] != "invalid_request" || !resp.Close {
		t.Errorf("Transfer-Encoding: chunk: want 400 and the connection closed, got %d %v (close %v)", resp.StatusCode, body, resp.Close)
	}

	// The body of neither length is sent: the answer must come at once.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second)) // the server's read timeout is 30 s
	if _, err := c.Write([]byte("POST /api/world/tickets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 900\r\n\r\n{}")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	n, err := c.Read(buf)
	if err != nil || n < 12 || string(buf[9:12]) != "400" {
		t.Errorf("two Content-Lengths, the second larger: want 400 at once, got %q %v", buf[:n], err)
	}

	resp, body = rawExchange(t, addr, "FOO /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	if resp.StatusCode != 405 || resp.Header.Get("X-Request-Id") == "" || body["hint"] == nil {
		t.Errorf("FOO /healthz: want 405 with an X-Request-Id, got %d %v %v", resp.StatusCode, resp.Header, body)
	}
}
