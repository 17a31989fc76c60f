// Package load drives a running world over its public HTTP API with many
// simulated agents at once, the way citizens would use it: each agent has
// its own key pair and development certificate and signs every request
// with a fresh nonce. It records every answer per route, follows the live
// feed to time how long an acknowledged write takes to become visible, and
// checks at the end that every acknowledged write reached the services'
// lists and the bulletin. `make load` and `make soak` use it.
package load

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"sharedworld.dev/pkg/auth"
)

// Client is a connection pool to one world; agents share it.
type Client struct {
	Base string
	HTTP *http.Client
	// Rec receives every answer (nil: none are recorded).
	Rec *Recorder
	// Observe, when set, hears every answer with its route.
	Observe func(route string, a Answer)
}

// NewClient returns a client for the world at base with a pool sized for
// conns agents acting at once.
func NewClient(base string, conns int) *Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = conns+16, conns+16
	return &Client{Base: base, HTTP: &http.Client{Transport: tr, Timeout: 30 * time.Second}, Rec: NewRecorder()}
}

// CheckLoopback refuses a base URL whose host is not a loopback address:
// the generator is for one's own world, never someone else's.
func CheckLoopback(base string) error {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%q is not a base URL", base)
	}
	host := u.Hostname()
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%s is not a loopback address; load is meant for a world of one's own (pass -allow-remote to override)", host)
}

// Agent is one simulated citizen's credentials.
type Agent struct {
	Name string
	ID   string
	key  ed25519.PrivateKey
	cert string // the certificate JSON
}

// Answer is what the world said to one request.
type Answer struct {
	Status int
	Body   map[string]any
	// Err is a transport error (no answer).
	Err     error
	Latency time.Duration
	// At is when the answer arrived.
	At time.Time
	// RetryAfter is the answer's Retry-After header.
	RetryAfter string
}

type intendedKey struct{}

// Intended marks ctx's requests as meant to be sent at t: their latency is
// counted from t, not from when they left, so that a generator or a client
// falling behind does not hide the world's stall (open-loop runs).
func Intended(ctx context.Context, t time.Time) context.Context {
	return context.WithValue(ctx, intendedKey{}, t)
}

// Register makes a key pair and has the development identity provider
// certify its public key (the private key never leaves the agent).
func (c *Client) Register(ctx context.Context, name string) (*Agent, Answer) {
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	a := &Agent{Name: name, key: priv}
	ans := c.Do(ctx, nil, "POST /dev/idp/register", http.MethodPost, "/dev/idp/register",
		map[string]any{"agent_name": name, "public_key": base64.StdEncoding.EncodeToString(pub)})
	if ans.Status == http.StatusCreated {
		cert, _ := json.Marshal(ans.Body["certificate"])
		a.cert = string(cert)
		a.ID, _ = ans.Body["agent_id"].(string)
	}
	return a, ans
}

// Do sends one request as agent a (anonymous when a is nil), signed with a
// fresh nonce, and records the answer under route. refusals are the
// statuses the contract prescribes for this call in some state the agent
// cannot know beforehand (a daily cap reached, a plot taken): they count as
// refusals, any other 4xx as unexpected.
func (c *Client) Do(ctx context.Context, a *Agent, route, method, pathAndQuery string, body any, refusals ...int) Answer {
	var raw []byte
	if body != nil {
		raw, _ = json.Marshal(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Base+pathAndQuery, bytes.NewReader(raw))
	if err != nil {
		return Answer{Err: err}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if a != nil && a.cert != "" {
		req.Header.Set("X-Agent-Id", a.ID)
		req.Header.Set("X-Agent-Certificate", a.cert)
		req.Header.Set("X-Agent-Signature", auth.SignRequestNonce(a.key, method, pathAndQuery, time.Now().Unix(), raw, nonce()))
	}
	start := time.Now()
	if t, ok := ctx.Value(intendedKey{}).(time.Time); ok {
		start = t
	}
	ans := Answer{}
	resp, err := c.HTTP.Do(req)
	if err == nil {
		var b []byte
		b, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		ans.Status, ans.RetryAfter = resp.StatusCode, resp.Header.Get("Retry-After")
		_ = json.Unmarshal(b, &ans.Body)
	}
	ans.Err, ans.At = err, time.Now()
	ans.Latency = ans.At.Sub(start)
	if c.Rec != nil && route != "" && ctx.Err() == nil {
		c.Rec.Note(route, ans, refusals)
	}
	if c.Observe != nil && route != "" {
		c.Observe(route, ans)
	}
	return ans
}

func nonce() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// str reads a string field of a JSON object, following nested objects.
func str(m map[string]any, keys ...string) string {
	for i, k := range keys {
		if i == len(keys)-1 {
			s, _ := m[k].(string)
			return s
		}
		m, _ = m[k].(map[string]any)
	}
	return ""
}

func num(v any) int {
	switch n := v.(type) {
	case float64:
		return int(n)
	case string:
		var i int
		_, _ = fmt.Sscan(n, &i)
		return i
	}
	return 0
}
