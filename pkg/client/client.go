// Package client is a Go client of the Shared World HTTP API: typed
// requests and responses for every route of the OpenAPI document,
// credentials in headers, request signatures with a fresh nonce, cursor
// iterators for every list, the live feed as a channel, and errors as
// *Error. It depends on the standard library only, so an agent can vendor
// it without the world's server stack.
package client

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DefaultURL is the address of `make run`.
const DefaultURL = "http://127.0.0.1:8080"

// Identity is what an agent proves itself with: its agent_id, the
// certificate the identity provider issued, and the private key of the
// certificate's public_key (needed for request signatures).
type Identity struct {
	AgentID     string
	Certificate json.RawMessage
	PrivateKey  ed25519.PrivateKey
}

// Client calls one world. The zero value is not usable; build it with New.
// A Client is safe for concurrent use.
type Client struct {
	base     *url.URL
	http     *http.Client
	identity *Identity
	token    string
	sign     bool
	retry    RetryPolicy
	timeout  time.Duration
	agent    string
	now      func() time.Time
}

// RetryPolicy says how often and how long the client retries. A request is
// retried only when that is safe: a GET after a network error, a 503 or a
// 429; a write only after a 429, which the world answers without applying
// anything (rejected requests never count). A write answered 503 is not
// retried: the database may have dropped the connection after applying it,
// and only the caller knows whether repeating it is harmless. A 429 whose
// Retry-After is longer than MaxWait is returned at once (a daily limit
// waits for the next UTC day, not for a retry loop).
type RetryPolicy struct {
	Attempts int           // total attempts, at least 1; default 4
	MinWait  time.Duration // first wait without Retry-After; default 200ms
	MaxWait  time.Duration // longest wait, Retry-After included; default 30s
}

// Option configures a Client.
type Option func(*Client)

// WithIdentity makes the client act as this agent: every request carries
// X-Agent-Id and X-Agent-Certificate, and a signature when the identity has
// a private key.
func WithIdentity(id Identity) Option { return func(c *Client) { c.identity = &id } }

// WithAmbassadorToken gives the client the ambassador's bearer token for
// the /api/admin routes.
func WithAmbassadorToken(token string) Option { return func(c *Client) { c.token = token } }

// WithHTTPClient replaces http.DefaultClient.
func WithHTTPClient(h *http.Client) Option { return func(c *Client) { c.http = h } }

// DefaultTimeout bounds each attempt of a request: a world that accepts
// the connection and never answers costs this long, not forever.
const DefaultTimeout = 30 * time.Second

// WithTimeout bounds each attempt of a request (sending it and reading the
// whole answer; for the live feed, until the stream's headers arrive).
// Zero or less means no bound.
func WithTimeout(d time.Duration) Option { return func(c *Client) { c.timeout = d } }

// WithoutSignatures turns request signatures off (they are on by default
// whenever the identity has a private key).
func WithoutSignatures() Option { return func(c *Client) { c.sign = false } }

// WithRetry replaces the default retry policy.
func WithRetry(p RetryPolicy) Option { return func(c *Client) { c.retry = p } }

// WithUserAgent sets the User-Agent header.
func WithUserAgent(ua string) Option { return func(c *Client) { c.agent = ua } }

// New returns a client of the world at baseURL (DefaultURL when empty).
func New(baseURL string, opts ...Option) (*Client, error) {
	if baseURL == "" {
		baseURL = DefaultURL
	}
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("client: %q is not an http(s) base URL", baseURL)
	}
	c := &Client{base: u, http: http.DefaultClient, sign: true, agent: "sharedworld-client", now: time.Now, timeout: DefaultTimeout}
	for _, o := range opts {
		o(c)
	}
	c.retry = c.retry.withDefaults()
	return c, nil
}

// Identity returns the agent the client acts as, or nil.
func (c *Client) Identity() *Identity { return c.identity }

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.Attempts < 1 {
		p.Attempts = 4
	}
	if p.MinWait <= 0 {
		p.MinWait = 200 * time.Millisecond
	}
	if p.MaxWait <= 0 {
		p.MaxWait = 30 * time.Second
	}
	return p
}

// auth says which credentials a route takes.
type auth int

const (
	noAuth       auth = iota
	agentAuth         // the agent's certificate (and signature)
	optionalAuth      // the agent's when the client has one
	ambassador        // the bearer token
	agentOrAmb        // the agent's when there is one, else the token
)

// call is one request.
type call struct {
	method string
	path   string
	query  url.Values
	body   any // marshalled as JSON when not nil
	auth   auth
	header http.Header
}

// do sends the call, retrying where safe, and decodes a 2xx answer into
// out (when not nil). Any other answer is an *Error.
func (c *Client) do(ctx context.Context, k call, out any) error {
	resp, err := c.send(ctx, k)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: read the answer: %w", k.method, k.path, err)
	}
	recordAnswer(ctx, raw)
	if out == nil || resp.StatusCode == http.StatusNoContent {
		return nil
	}
	switch o := out.(type) {
	case *[]byte:
		*o = raw
		return nil
	case *json.RawMessage:
		*o = append(json.RawMessage(nil), raw...)
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s %s: decode the answer: %w", k.method, k.path, err)
	}
	return nil
}

// send returns a 2xx (or 304) response whose body the caller closes.
func (c *Client) send(ctx context.Context, k call) (*http.Response, error) {
	var body []byte
	if k.body != nil {
		var err error
		if body, err = json.Marshal(k.body); err != nil {
			return nil, fmt.Errorf("%s %s: encode the request: %w", k.method, k.path, err)
		}
	}
	for attempt := 1; ; attempt++ {
		actx, cancel := c.attemptContext(ctx)
		req, err := c.request(actx, k, body)
		if err != nil {
			cancel()
			return nil, err
		}
		resp, err := c.http.Do(req)
		var wait time.Duration
		switch {
		case err != nil:
			cancel()
			if errors.Is(actx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
				err = fmt.Errorf("%w: no answer within %s", ErrTimeout, c.timeout)
			}
			if ctx.Err() != nil || k.method != http.MethodGet || attempt >= c.retry.Attempts {
				return nil, fmt.Errorf("%s %s: %w", k.method, k.path, err)
			}
			wait = c.backoff(attempt)
		case resp.StatusCode < 300 || resp.StatusCode == http.StatusNotModified:
			resp.Body = cancelOnClose{resp.Body, cancel}
			return resp, nil
		default:
			apiErr := readError(resp)
			resp.Body.Close()
			cancel()
			retryable := (resp.StatusCode == http.StatusServiceUnavailable && k.method == http.MethodGet) ||
				(resp.StatusCode == http.StatusTooManyRequests && apiErr.RetryAfter > 0)
			if !retryable || attempt >= c.retry.Attempts || apiErr.RetryAfter > c.retry.MaxWait {
				return nil, apiErr
			}
			wait = max(apiErr.RetryAfter, c.backoff(attempt))
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("%s %s: %w", k.method, k.path, ctx.Err())
		case <-t.C:
		}
	}
}

// ErrTimeout is wrapped by the error of an attempt the world did not
// answer within the client's timeout (WithTimeout).
var ErrTimeout = errors.New("the world did not answer in time")

// attemptContext bounds one attempt by the client's timeout.
func (c *Client) attemptContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.timeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, c.timeout)
}

// cancelOnClose ends an attempt's context once its answer has been read:
// the timeout covers reading the body too.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// backoff is the wait before attempt+1 when the world named none.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.retry.MinWait << (attempt - 1)
	return min(d, c.retry.MaxWait)
}

// request builds one attempt; each attempt is signed afresh (a new t and
// nonce), since the world refuses a signature it has seen.
func (c *Client) request(ctx context.Context, k call, body []byte) (*http.Request, error) {
	u := *c.base
	u.Path = c.base.Path + k.path
	u.RawPath = ""
	if len(k.query) > 0 {
		u.RawQuery = k.query.Encode()
	}
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, k.method, u.String(), r)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", k.method, k.path, err)
	}
	for name, vals := range k.header {
		req.Header[name] = vals
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "application/json")
	}
	req.Header.Set("User-Agent", c.agent)
	switch {
	case k.auth == ambassador, k.auth == agentOrAmb && c.identity == nil:
		if c.token == "" {
			return nil, fmt.Errorf("%s %s: %w", k.method, k.path, ErrNoAmbassadorToken)
		}
		req.Header.Set("Authorization", "Bearer "+c.token)
	case k.auth == agentAuth && c.identity == nil:
		return nil, fmt.Errorf("%s %s: %w", k.method, k.path, ErrNoIdentity)
	case k.auth == agentAuth, k.auth == optionalAuth && c.identity != nil, k.auth == agentOrAmb:
		if err := c.credentials(req, body); err != nil {
			return nil, err
		}
	}
	return req, nil
}

// ErrNoIdentity is returned for a route that needs an agent's certificate
// when the client has none.
var ErrNoIdentity = errors.New("this route needs an agent identity (WithIdentity)")

// ErrNoAmbassadorToken is returned for an /api/admin route when the client
// has no token.
var ErrNoAmbassadorToken = errors.New("this route needs the ambassador token (WithAmbassadorToken)")

// credentials puts the certificate, and a signature, on req.
func (c *Client) credentials(req *http.Request, body []byte) error {
	id := c.identity
	var cert bytes.Buffer
	if err := json.Compact(&cert, id.Certificate); err != nil {
		return fmt.Errorf("client: the certificate is not JSON: %w", err)
	}
	req.Header.Set("X-Agent-Id", id.AgentID)
	req.Header.Set("X-Agent-Certificate", cert.String())
	if c.sign && len(id.PrivateKey) == ed25519.PrivateKeySize {
		nonce, err := newNonce()
		if err != nil {
			return err
		}
		req.Header.Set("X-Agent-Signature", SignatureHeader(id.PrivateKey, req.Method, req.URL.RequestURI(), c.now().Unix(), body, nonce))
	}
	return nil
}
