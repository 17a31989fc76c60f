package attack

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"strings"
	"time"

	"sharedworld.dev/pkg/auth"
)

// Reply is one answer (or the transport error in its place).
type Reply struct {
	Method, Path string
	Status       int
	Header       http.Header
	Body         []byte
	JSON         map[string]any
	Err          error
}

// Str is a top-level string field of the JSON answer.
func (r Reply) Str(field string) string { s, _ := r.JSON[field].(string); return s }

// World is one running world the attacks talk to. It is a raw HTTP client
// on purpose, not the world's Go client (pkg/client): attacks send what a
// well-behaved client never would (forged and replayed signatures, mixed
// credentials, malformed bodies and framing) and read every answer as is.
type World struct {
	URL   string
	Token string // the ambassador token
	HTTP  *http.Client
}

// NewWorld returns a client of the world at url.
func NewWorld(url, token string) *World {
	return &World{URL: strings.TrimSuffix(url, "/"), Token: token, HTTP: &http.Client{Timeout: 30 * time.Second}}
}

// Send sends one request on behalf of cat and reads the whole answer.
func (w *World) Send(cat *Category, method, path string, body []byte, h http.Header) Reply {
	cat.count(1)
	r := Reply{Method: method, Path: path}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, w.URL+path, rd)
	if err != nil {
		r.Err = err
		return r
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := w.HTTP.Do(req)
	if err != nil {
		r.Err = err
		return r
	}
	defer resp.Body.Close()
	r.Status, r.Header = resp.StatusCode, resp.Header
	r.Body, r.Err = io.ReadAll(resp.Body)
	_ = json.Unmarshal(r.Body, &r.JSON)
	return r
}

// JSON sends v as the JSON body.
func (w *World) JSON(cat *Category, method, path string, v any, h http.Header) Reply {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return w.Send(cat, method, path, b, h)
}

// Raw writes req as given on a connection of its own (framing attacks Go's
// client refuses to send) and reads one answer.
func (w *World) Raw(cat *Category, label, req string) Reply {
	cat.count(1)
	r := Reply{Method: "RAW", Path: label}
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(w.URL, "http://"), 5*time.Second)
	if err != nil {
		r.Err = err
		return r
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, req); err != nil {
		r.Err = err
		return r
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		r.Err = err
		return r
	}
	defer resp.Body.Close()
	r.Status, r.Header = resp.StatusCode, resp.Header
	r.Body, _ = io.ReadAll(resp.Body)
	_ = json.Unmarshal(r.Body, &r.JSON)
	if resp.Close {
		r.Header.Set("X-Attack-Closed", "1")
	}
	return r
}

// Admin is the ambassador's Authorization header.
func (w *World) Admin() http.Header {
	return http.Header{"Authorization": {"Bearer " + w.Token}}
}

// Agent is an identity of the development provider, possibly a citizen.
type Agent struct {
	ID, Name string
	Cert     string
	Key      ed25519.PrivateKey
}

// Headers are the agent's credentials (both, as CONTRACT §2 asks).
func (a Agent) Headers() http.Header {
	return http.Header{"X-Agent-Id": {a.ID}, "X-Agent-Certificate": {a.Cert}}
}

// Signed are the credentials plus a signature of the request at t with
// nonce ("" for none).
func (a Agent) Signed(method, pathAndQuery string, body []byte, t int64, nonce string) http.Header {
	h := a.Headers()
	h.Set("X-Agent-Signature", auth.SignRequestNonce(a.Key, method, pathAndQuery, t, body, nonce))
	return h
}

// NewAgent gets a certificate from the development provider.
func (w *World) NewAgent(cat *Category, name string) (Agent, error) {
	r := w.JSON(cat, "POST", "/dev/idp/register", map[string]any{"agent_name": name}, nil)
	if !cat.Want(r, "a development identity", 201) {
		return Agent{}, fmt.Errorf("dev register %s: %d %s", name, r.Status, excerpt(r))
	}
	var out struct {
		AgentID     string          `json:"agent_id"`
		Certificate json.RawMessage `json:"certificate"`
		PrivateKey  string          `json:"private_key"`
	}
	if err := json.Unmarshal(r.Body, &out); err != nil {
		return Agent{}, err
	}
	seed, err := base64.StdEncoding.DecodeString(out.PrivateKey)
	if err != nil || len(seed) != ed25519.SeedSize {
		return Agent{}, fmt.Errorf("dev register %s: no private key", name)
	}
	return Agent{ID: out.AgentID, Name: name, Cert: string(out.Certificate), Key: ed25519.NewKeyFromSeed(seed)}, nil
}

// NewCitizen gets a certificate and registers a citizen under a name of
// its own (prefix plus a random suffix, so runs against one world differ).
func (w *World) NewCitizen(cat *Category, prefix string) (Agent, error) {
	name := prefix + Nonce()[:6]
	a, err := w.NewAgent(cat, name)
	if err != nil {
		return a, err
	}
	// A source address of its own (a world behind a proxy that names it
	// reads it; others ignore it), so the registrations per source rule
	// meets only the requests meant to spend it.
	h := a.Headers()
	h.Set("X-Forwarded-For", fmt.Sprintf("10.%d.%d.%d", mrand.IntN(256), mrand.IntN(256), 1+mrand.IntN(254)))
	r := w.JSON(cat, "POST", "/api/world/register", map[string]any{"name": name}, h)
	if !cat.Want(r, "register a citizen", 201) {
		return a, fmt.Errorf("register %s: %d %s", name, r.Status, excerpt(r))
	}
	return a, nil
}

// Nonce is a fresh random request nonce ([A-Za-z0-9_-]).
func Nonce() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return strings.NewReplacer("-", "a", "_", "b").Replace(base64.RawURLEncoding.EncodeToString(b[:]))
}
