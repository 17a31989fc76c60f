package httpx_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
)

// holdingProxy forwards TCP to a server until Hold, after which it stops
// passing bytes either way: to the client the server hangs, as a SIGSTOPped
// database or a blackholed connection does (not refused: nothing answers).
type holdingProxy struct {
	ln   net.Listener
	once sync.Once
	held chan struct{} // closed by Hold
}

func newHoldingProxy(t *testing.T, target string) *holdingProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &holdingProxy{ln: ln, held: make(chan struct{})}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				_ = in.Close()
				continue
			}
			t.Cleanup(func() { _ = in.Close(); _ = out.Close() })
			go p.pipe(out, in)
			go p.pipe(in, out)
		}
	}()
	return p
}

// pipe copies src to dst until Hold, then blocks without reading.
func (p *holdingProxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			select {
			case <-p.held:
				return // swallowed: the server never sees it, the client never hears back
			default:
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *holdingProxy) Hold() {
	p.once.Do(func() { close(p.held) })
}

// A database that stops answering (hung, not refused) gets a request a 503
// with Retry-After and the contract's body within the request deadline,
// not after the driver's 30 s socket timeout.
func TestHungDatabaseAnswers503WithinTheDeadline(t *testing.T) {
	const deadline = 500 * time.Millisecond
	hold := newHoldingProxy(t, hostOf(t, testkit.MongoURI(t)))
	client, err := mongox.Connect(context.Background(), "mongodb://"+hold.ln.Addr().String()+"/?directConnection=true")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	coll := client.Database("httpx_deadline").Collection("notes")

	a := httpx.NewApp(httpx.Options{Service: "httpxtest", Deadline: deadline})
	a.Post("/notes", func(c *fiber.Ctx) error {
		if _, err := coll.InsertOne(c.UserContext(), bson.M{"at": time.Now()}); err != nil {
			return err
		}
		return httpx.OK(c, fiber.StatusCreated, fiber.Map{})
	})
	if resp, err := a.Test(httptest.NewRequest("POST", "/notes", nil), 5000); err != nil || resp.StatusCode != fiber.StatusCreated {
		t.Fatalf("before the hang: %v %v", resp, err)
	}

	hold.Hold()
	start := time.Now()
	resp, err := a.Test(httptest.NewRequest("POST", "/notes", nil), 5000)
	took := time.Since(start)
	if err != nil {
		t.Fatalf("no answer %v after the database hung (want a 503 within %v): %v", took, deadline, err)
	}
	if took > deadline+time.Second {
		t.Fatalf("answered after %v; the deadline is %v", took, deadline)
	}
	if resp.StatusCode != fiber.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("status %d, Retry-After %q; want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	raw, _ := io.ReadAll(resp.Body)
	var body httpx.ErrorBody
	if err := json.Unmarshal(raw, &body); err != nil || body.OK || body.Error != "unavailable" || body.Hint == "" {
		t.Fatalf("body %s: want the contract's unavailable error with a hint", raw)
	}
}

func hostOf(t *testing.T, uri string) string {
	t.Helper()
	u, err := url.Parse(uri)
	if err != nil || u.Host == "" {
		t.Fatalf("the tests' database URI %q: %v", uri, err)
	}
	return u.Host
}
