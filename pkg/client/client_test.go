package client_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/client"
	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/problem"
)

// serve runs a kit app (the world's error model) on a local port.
func serve(t *testing.T, app *fiber.App) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.Shutdown() })
	return "http://" + ln.Addr().String()
}

func newAgent(t *testing.T) (client.Identity, *auth.Certificate) {
	t.Helper()
	_, providerKey, _ := ed25519.GenerateKey(rand.Reader)
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	issuer := auth.Issuer{Name: "test", Kid: "k1", Key: providerKey}
	agentID, raw, err := issuer.Issue("Ada", pub, time.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := auth.ParseCertificate(raw)
	if err != nil {
		t.Fatal(err)
	}
	return client.Identity{AgentID: agentID, Certificate: raw, PrivateKey: priv}, cert
}

// A refusal of the world is a *client.Error with the status, the code, the
// message and the hint the server wrote, and the request id.
func TestRefusalIsTypedErrorWithTheServersHint(t *testing.T) {
	app := httpx.NewApp(httpx.Options{Service: "test"})
	app.Post("/api/world/plots/claim", func(*fiber.Ctx) error {
		return problem.Conflict("The plot plot_x3_y4 is taken.", "Ask GET /api/world/plots/available for a free cell near it.")
	})
	id, _ := newAgent(t)
	c, err := client.New(serve(t, app), client.WithIdentity(id))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ClaimPlot(context.Background(), 3, 4)
	var apiErr *client.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("error %v (%T) is not a *client.Error", err, err)
	}
	if apiErr.Status != 409 || apiErr.Code != "conflict" || apiErr.Message != "The plot plot_x3_y4 is taken." ||
		apiErr.Hint != "Ask GET /api/world/plots/available for a free cell near it." || apiErr.RequestID == "" || !apiErr.Refused() {
		t.Fatalf("error = %+v", apiErr)
	}
}

// A 429 with Retry-After is retried after that long, and then succeeds;
// a limit whose Retry-After is beyond the policy's wait is returned at once.
func TestRetriesA429AfterRetryAfter(t *testing.T) {
	var calls atomic.Int32
	var first, second time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch calls.Add(1) {
		case 1:
			first = time.Now()
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(429)
			fmt.Fprint(w, `{"ok":false,"error":"rate_limited","message":"Slow down.","hint":"Wait a second."}`)
		default:
			second = time.Now()
			fmt.Fprint(w, `{"ok":true,"tickets":[{"ticket_id":"tkt_0000000a","title":"Lamp"}],"counts":{"open":"1","acknowledged":"0","resolved":"0"},"pagination":{"limit":50,"count":1,"next":null}}`)
		}
	}))
	defer srv.Close()
	c, _ := client.New(srv.URL)
	page, err := c.ListTickets(context.Background(), client.TicketFilter{})
	if err != nil {
		t.Fatalf("list after a 429: %v", err)
	}
	if calls.Load() != 2 || len(page.Tickets) != 1 || page.Tickets[0].Title != "Lamp" || page.Counts.Open != "1" {
		t.Fatalf("calls %d, page %+v", calls.Load(), page)
	}
	if waited := second.Sub(first); waited < time.Second {
		t.Fatalf("retried after %v, before the Retry-After of 1s", waited)
	}

	daily := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Retry-After", "36000")
		w.WriteHeader(429)
		fmt.Fprint(w, `{"ok":false,"error":"rate_limited","message":"5 tickets a day.","hint":"Try again tomorrow (UTC)."}`)
	}))
	defer daily.Close()
	calls.Store(0)
	id, _ := newAgent(t)
	c, _ = client.New(daily.URL, client.WithIdentity(id))
	_, err = c.FileTicket(context.Background(), client.TicketRequest{Category: "bug", Title: "x", Description: "y"})
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || apiErr.Code != "rate_limited" || apiErr.RetryAfter != 10*time.Hour || calls.Load() != 1 {
		t.Fatalf("a daily limit: err %v, calls %d", err, calls.Load())
	}
}

// A POST that fails on the network is not retried (it may have been
// applied); a GET is.
func TestRetriesOnlyWhereSafe(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		hj, _ := w.(http.Hijacker)
		conn, _, _ := hj.Hijack()
		conn.Close() // the connection drops with no answer
	}))
	defer srv.Close()
	id, _ := newAgent(t)
	c, _ := client.New(srv.URL, client.WithIdentity(id), client.WithRetry(client.RetryPolicy{Attempts: 3, MinWait: time.Millisecond}))
	if _, err := c.UpvoteTicket(context.Background(), "tkt_0000000a"); err == nil || calls.Load() != 1 {
		t.Fatalf("POST: err %v after %d calls, want an error after 1", err, calls.Load())
	}
	calls.Store(0)
	if _, err := c.GetTicket(context.Background(), "tkt_0000000a"); err == nil || calls.Load() != 3 {
		t.Fatalf("GET: err %v after %d calls, want an error after 3", err, calls.Load())
	}
}

// A 503 is retried for a GET, not for a write: the database may have
// applied the write before the connection broke.
func TestRetriesA503OnlyForReads(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"ok":false,"error":"unavailable","message":"The database is unavailable.","hint":"Retry later."}`))
	}))
	defer srv.Close()
	id, _ := newAgent(t)
	c, _ := client.New(srv.URL, client.WithIdentity(id), client.WithRetry(client.RetryPolicy{Attempts: 3, MinWait: time.Millisecond, MaxWait: 2 * time.Second}))
	_, err := c.UpvoteTicket(context.Background(), "tkt_0000000a")
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || apiErr.Status != 503 || calls.Load() != 1 {
		t.Fatalf("POST: err %v after %d calls, want the 503 after 1", err, calls.Load())
	}
	calls.Store(0)
	if _, err := c.GetTicket(context.Background(), "tkt_0000000a"); err == nil || calls.Load() != 3 {
		t.Fatalf("GET: err %v after %d calls, want an error after 3", err, calls.Load())
	}
}

// The client's signatures verify with the world's own verifier, carry a
// nonce, and two identical requests in one second are both accepted.
func TestSignaturesVerifyWithTheWorldsAuth(t *testing.T) {
	id, cert := newAgent(t)
	replay := auth.NewReplayCache()
	var mu sync.Mutex
	var nonces []string
	app := httpx.NewApp(httpx.Options{Service: "test"})
	app.Post("/api/world/tickets/:id/upvote", func(c *fiber.Ctx) error {
		if c.Get("X-Agent-Id") != id.AgentID || !strings.Contains(c.Get("X-Agent-Certificate"), id.AgentID) {
			return problem.Unauthenticated("No credentials.", "Send them.")
		}
		rs, err := auth.ParseSignatureHeader(c.Get("X-Agent-Signature"))
		if err != nil {
			return err
		}
		if err := auth.VerifyRequest(c.UserContext(), cert, rs, c.Method(), string(c.Request().RequestURI()), c.Body(), replay, time.Now()); err != nil {
			return err
		}
		mu.Lock()
		nonces = append(nonces, rs.Nonce)
		mu.Unlock()
		return httpx.OK(c, 200, fiber.Map{"ticket_id": c.Params("id"), "upvotes": 1})
	})
	c, _ := client.New(serve(t, app), client.WithIdentity(id))
	for range 2 {
		if _, err := c.UpvoteTicket(context.Background(), "tkt_0000000a"); err != nil {
			t.Fatalf("signed request refused: %v", err)
		}
	}
	if len(nonces) != 2 || nonces[0] == "" || nonces[0] == nonces[1] {
		t.Fatalf("nonces %q, want two different ones", nonces)
	}
	if got, want := string(client.SigningString("GET", "/a?b=1", 7, nil, "n1")), string(auth.SigningString("GET", "/a?b=1", 7, nil, "n1")); got != want {
		t.Fatalf("signing strings differ:\n%q\n%q", got, want)
	}
}
