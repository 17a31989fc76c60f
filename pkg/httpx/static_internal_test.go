package httpx

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
)

// staticServer serves GET /doc from *current on a lingeringListener, as
// the host does, and returns its address.
func staticServer(t *testing.T, current *atomic.Pointer[StaticBody]) string {
	t.Helper()
	app := NewApp(Options{Service: "static-test", Logger: slog.New(slog.DiscardHandler)})
	app.Get("/doc", func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderContentType, "application/octet-stream")
		SendStatic(c.Context(), current.Load())
		return nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = Serve(app, ln) }()
	t.Cleanup(func() { _ = app.ShutdownWithTimeout(5 * time.Second) })
	return ln.Addr().String()
}

// document is n bytes that differ from any shifted copy of themselves, so a
// body sent from a wrong offset cannot pass for the right one.
func document(n int, version byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7+i/251) ^ version
	}
	return b
}

// exchange sends raw requests on one connection and reads their responses
// in order (methods tell the reader which have no body).
func exchange(t *testing.T, conn net.Conn, br *bufio.Reader, method string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	req := method + " /doc HTTP/1.1\r\nHost: test\r\n"
	for _, h := range headers {
		req += h + "\r\n"
	}
	if _, err := io.WriteString(conn, req+"\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// A large body leaves by sendfile from its file: the bytes kept in memory
// are overwritten after the file was made, so only the file can answer
// with the original. GET, HEAD and a small body interleave on one
// keep-alive connection and every response keeps its framing.
func TestSendStaticSendsTheFileOnOneConnection(t *testing.T) {
	large := document(200<<10, 0)
	want := bytes.Clone(large)
	s := NewStaticBody(large)
	if s.file == nil {
		t.Fatal("no in-memory file for a 200 KiB body")
	}
	for i := range large {
		large[i] = 'x'
	}
	small := NewStaticBody(document(2<<10, 1))
	var current atomic.Pointer[StaticBody]
	current.Store(s)
	addr := staticServer(t, &current)

	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	br := bufio.NewReader(conn)
	for round := 0; round < 3; round++ {
		current.Store(s)
		resp, body := exchange(t, conn, br, http.MethodGet)
		if resp.StatusCode != 200 || resp.ContentLength != int64(len(want)) || !bytes.Equal(body, want) {
			t.Fatalf("round %d GET: status %d, length %d, %d bytes, equal %v (sent from memory, not the file?)",
				round, resp.StatusCode, resp.ContentLength, len(body), bytes.Equal(body, want))
		}
		resp, body = exchange(t, conn, br, http.MethodHead)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Length") != strconv.Itoa(len(want)) || len(body) != 0 {
			t.Fatalf("round %d HEAD: status %d, Content-Length %q, %d body bytes", round, resp.StatusCode, resp.Header.Get("Content-Length"), len(body))
		}
		current.Store(small)
		resp, body = exchange(t, conn, br, http.MethodGet)
		if resp.StatusCode != 200 || !bytes.Equal(body, small.Bytes()) {
			t.Fatalf("round %d small GET: status %d, %d bytes", round, resp.StatusCode, len(body))
		}
	}
	if n := s.refs.Load(); n != 1 {
		t.Fatalf("after the responses the body holds %d references, want the owner's 1", n)
	}
}

// Readers racing a change of document each get one whole version; a
// retired body's file closes once its last response ended, and a response
// that starts after that sends the bytes from memory.
func TestSendStaticDuringChanges(t *testing.T) {
	var current atomic.Pointer[StaticBody]
	versions := make([][]byte, 20)
	for v := range versions {
		versions[v] = document(64<<10+v*1000, byte(v))
	}
	bodies := []*StaticBody{NewStaticBody(versions[0])}
	current.Store(bodies[0])
	addr := staticServer(t, &current)

	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 8)
	var served atomic.Int64
	for r := 0; r < 8; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Transport: &http.Transport{}, Timeout: 20 * time.Second}
			defer client.CloseIdleConnections()
			for {
				select {
				case <-stop:
					return
				default:
				}
				resp, err := client.Get("http://" + addr + "/doc")
				if err != nil {
					errs <- err
					return
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil {
					errs <- err
					return
				}
				if !isVersion(body, versions) {
					errs <- fmt.Errorf("a body of %d bytes is no version of the document", len(body))
					return
				}
				served.Add(1)
			}
		}()
	}
	for v := 1; v < len(versions); v++ {
		target := served.Load() + 20
		deadline := time.Now().Add(20 * time.Second)
		for served.Load() < target && time.Now().Before(deadline) && len(errs) == 0 {
			time.Sleep(time.Millisecond) // paces the changes by responses served
		}
		next := NewStaticBody(versions[v])
		bodies = append(bodies, next)
		old := current.Swap(next)
		old.Retire()
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if served.Load() < int64(20*(len(versions)-1)) {
		t.Fatalf("only %d responses served", served.Load())
	}
	for i, b := range bodies[:len(bodies)-1] {
		if n := b.refs.Load(); n != 0 {
			t.Fatalf("retired body %d holds %d references after every response ended", i, n)
		}
		if _, err := b.file.Stat(); err == nil {
			t.Fatalf("retired body %d still has its file open", i)
		}
	}
	// A retired body is still served whole, from memory.
	retired := bodies[0]
	current.Store(retired)
	resp, err := http.Get("http://" + addr + "/doc")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if body, _ := io.ReadAll(resp.Body); !bytes.Equal(body, versions[0]) {
		t.Fatalf("a retired body answered %d bytes, not its own", len(body))
	}
}

func isVersion(body []byte, versions [][]byte) bool {
	for _, v := range versions {
		if bytes.Equal(body, v) {
			return true
		}
	}
	return false
}
