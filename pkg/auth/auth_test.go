package auth_test

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/testkit"
)

type memProvider struct {
	mu      sync.Mutex
	keys    []auth.Key
	revoked []auth.Revocation
}

func (p *memProvider) Keys(context.Context) ([]auth.Key, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.keys, nil
}

func (p *memProvider) Revocations(context.Context) ([]auth.Revocation, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.revoked, nil
}

type fixture struct {
	issuer   auth.Issuer
	provider *memProvider
	verifier *auth.Verifier
	app      *fiber.App
}

func newFixture(t *testing.T) *fixture {
	_, priv, _ := ed25519.GenerateKey(nil)
	iss := auth.Issuer{Name: "idp", Kid: "k1", Key: priv, Prefix: "emb"}
	p := &memProvider{keys: []auth.Key{{Kid: "k1", PublicKey: iss.PublicKey()}}}
	v := auth.NewVerifier(auth.VerifierOptions{Provider: p, Prefix: "emb"})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	v.Start(ctx)
	mw := &auth.Middleware{Verifier: v, Replay: auth.NewReplayCache()}
	app := httpx.NewApp(httpx.Options{Service: "authtest"})
	app.All("/echo", mw.Required(), func(c *fiber.Ctx) error {
		p, _ := auth.PrincipalOf(c)
		return httpx.OK(c, 200, fiber.Map{"agent_id": p.AgentID, "signed": p.Signed})
	})
	return &fixture{issuer: iss, provider: p, verifier: v, app: app}
}

type agent struct {
	id   string
	key  ed25519.PrivateKey
	cert json.RawMessage
}

func (f *fixture) agent(t *testing.T, extra map[string]any) agent {
	pub, priv, _ := ed25519.GenerateKey(nil)
	id, cert, err := f.issuer.Issue("Ada", pub, time.Now(), extra)
	if err != nil {
		t.Fatal(err)
	}
	return agent{id: id, key: priv, cert: cert}
}

// tamper changes one field of a signed certificate without re-signing.
func tamper(t *testing.T, cert json.RawMessage, field string, value any) json.RawMessage {
	var m map[string]any
	if err := json.Unmarshal(cert, &m); err != nil {
		t.Fatal(err)
	}
	m[field] = value
	b, _ := json.Marshal(m)
	return b
}

func headers(id string, cert []byte) map[string]string {
	return map[string]string{"X-Agent-Id": id, "X-Agent-Certificate": string(cert)}
}

func TestValidCertificatePassesInHeaderAndBody(t *testing.T) {
	f := newFixture(t)
	a := f.agent(t, nil)
	cases := []struct {
		name    string
		headers map[string]string
		body    any
	}{
		{"§2 header JSON", headers(a.id, a.cert), nil},
		{"§2 header base64", map[string]string{"X-Agent-Id": a.id, "X-Agent-Certificate": base64.StdEncoding.EncodeToString(a.cert)}, nil},
		{"§2 X-Embassy-Certificate alias", map[string]string{"X-Agent-Id": a.id, "X-Embassy-Certificate": string(a.cert)}, nil},
		{"§2 X-Embassy-Artifact alias", map[string]string{"X-Agent-Id": a.id, "X-Embassy-Artifact": string(a.cert)}, nil},
		{"§2 body object", nil, map[string]any{"agent_id": a.id, "embassy_certificate": json.RawMessage(a.cert)}},
		{"§2 body JSON string", nil, map[string]any{"agent_id": a.id, "embassy_certificate": string(a.cert)}},
		{"§2 body embassy_artifact alias", nil, map[string]any{"agent_id": a.id, "embassy_artifact": json.RawMessage(a.cert)}},
		{"§2 body certificate alias", nil, map[string]any{"agent_id": a.id, "certificate": json.RawMessage(a.cert)}},
		{"§2 header and body agree", headers(a.id, a.cert), map[string]any{"agent_id": a.id}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			method := http.MethodGet
			if c.body != nil {
				method = http.MethodPost
			}
			r := testkit.Do(t, f.app, testkit.Request{Method: method, Path: "/echo", Headers: c.headers, Body: c.body})
			r.ExpectStatus(t, 200)
			if r.Body["agent_id"] != a.id {
				t.Fatalf("principal %v, want %s", r.Body["agent_id"], a.id)
			}
		})
	}
}

func TestForgeriesAreRejected(t *testing.T) {
	f := newFixture(t)
	a := f.agent(t, nil)
	other := f.agent(t, nil)
	_, strangerKey, _ := ed25519.GenerateKey(nil)
	stranger := auth.Issuer{Name: "idp", Kid: "k1", Key: strangerKey, Prefix: "emb"}
	_, forged, _ := stranger.Issue("Ada", a.key.Public().(ed25519.PublicKey), time.Now(), nil)
	unknownKid := auth.Issuer{Name: "idp", Kid: "k9", Key: strangerKey, Prefix: "emb"}
	_, unknown, _ := unknownKid.Issue("Ada", a.key.Public().(ed25519.PublicKey), time.Now(), nil)
	expired := f.agent(t, map[string]any{"expires_at": time.Now().Add(-time.Minute).UTC().Format(time.RFC3339Nano)})

	cases := []struct {
		name    string
		headers map[string]string
		body    any
		code    string
	}{
		{"§2 no credentials", nil, nil, "unauthenticated"},
		{"§2 agent_name changed after signing", headers(a.id, tamper(t, a.cert, "agent_name", "Mallory")), nil, "unauthenticated"},
		{"§2 public_key changed after signing", headers(a.id, tamper(t, a.cert, "public_key", base64.StdEncoding.EncodeToString(make([]byte, 32)))), nil, "unauthenticated"},
		{"§2 field added after signing", headers(a.id, tamper(t, a.cert, "role", "admin")), nil, "unauthenticated"},
		{"§2 signed by a key the provider does not have (same kid)", headers(a.id, forged), nil, "unauthenticated"},
		{"§2 signed by an unknown kid", headers(a.id, unknown), nil, "unauthenticated"},
		{"§2 truncated agent_id", headers(a.id[:len(a.id)-1], a.cert), nil, "unauthenticated"},
		{"§2 another agent's id", headers(other.id, a.cert), nil, "unauthenticated"},
		{"§2 header and body ids differ", headers(a.id, a.cert), map[string]any{"agent_id": other.id}, "unauthenticated"},
		{"§2 header and body certificates of different agents", headers(a.id, a.cert), map[string]any{"embassy_certificate": json.RawMessage(other.cert)}, "unauthenticated"},
		{"§2 expired certificate", headers(expired.id, expired.cert), nil, "unauthenticated"},
		{"§11 certificate that is a number", nil, map[string]any{"agent_id": a.id, "embassy_certificate": 42}, "unauthenticated"},
		{"§11 agent_id that is an object", nil, map[string]any{"agent_id": map[string]any{"$ne": nil}, "embassy_certificate": json.RawMessage(a.cert)}, "unauthenticated"},
		{"§11 certificate that is not JSON", map[string]string{"X-Agent-Id": a.id, "X-Agent-Certificate": "not a certificate"}, nil, "unauthenticated"},
		{"§11 malformed X-Agent-Signature", map[string]string{"X-Agent-Id": a.id, "X-Agent-Certificate": string(a.cert), "X-Agent-Signature": "garbage"}, nil, "unauthenticated"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			method := http.MethodGet
			if c.body != nil {
				method = http.MethodPost
			}
			r := testkit.Do(t, f.app, testkit.Request{Method: method, Path: "/echo", Headers: c.headers, Body: c.body})
			r.ExpectError(t, 401, c.code)
		})
	}
}

func TestRevokedAfterRefresh(t *testing.T) {
	f := newFixture(t)
	a := f.agent(t, nil)
	testkit.Do(t, f.app, testkit.Request{Method: "GET", Path: "/echo", Headers: headers(a.id, a.cert)}).ExpectStatus(t, 200)
	f.provider.mu.Lock()
	f.provider.revoked = append(f.provider.revoked, auth.Revocation{AgentID: a.id, RevokedAt: time.Now()})
	f.provider.mu.Unlock()
	if err := f.verifier.RefreshRevocations(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The certificate was verified (and cached) before; revocation is still checked at use.
	testkit.Do(t, f.app, testkit.Request{Method: "GET", Path: "/echo", Headers: headers(a.id, a.cert)}).ExpectError(t, 401, "certificate_revoked")
}

func TestRevocationListRefreshesInBackground(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(nil)
	iss := auth.Issuer{Kid: "k1", Key: priv}
	p := &memProvider{keys: []auth.Key{{Kid: "k1", PublicKey: iss.PublicKey()}}}
	v := auth.NewVerifier(auth.VerifierOptions{Provider: p, RevocationRefresh: 50 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	v.Start(ctx)
	pub, _, _ := ed25519.GenerateKey(nil)
	id, cert, _ := iss.Issue("A", pub, time.Now(), nil)
	if _, err := v.Verify(ctx, cert); err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.revoked = []auth.Revocation{{AgentID: id, RevokedAt: time.Now()}}
	p.mu.Unlock()
	testkit.Eventually(t, 2*time.Second, "revocation picked up by the periodic refresh", func() bool {
		_, err := v.Verify(ctx, cert)
		return err != nil && strings.Contains(err.Error(), "revoked")
	})
}

func TestCertificateWithoutAgentIDIsRejected(t *testing.T) {
	f := newFixture(t)
	a := f.agent(t, nil)
	for name, req := range map[string]testkit.Request{
		"§2 header certificate only": {Method: "GET", Path: "/echo", Headers: map[string]string{"X-Agent-Certificate": string(a.cert)}},
		"§2 body certificate only":   {Method: "POST", Path: "/echo", Body: map[string]any{"embassy_certificate": json.RawMessage(a.cert)}},
	} {
		t.Run(name, func(t *testing.T) {
			testkit.Do(t, f.app, req).ExpectError(t, 401, "unauthenticated")
		})
	}
}

// A route whose body's agent_id names someone else reads credentials from
// the headers only.
func TestAuthenticateHeadersIgnoresTheBody(t *testing.T) {
	f := newFixture(t)
	a, b := f.agent(t, nil), f.agent(t, nil)
	mw := &auth.Middleware{Verifier: f.verifier, Replay: auth.NewReplayCache()}
	app := httpx.NewApp(httpx.Options{Service: "authtest"})
	app.Post("/target", func(c *fiber.Ctx) error {
		p, err := mw.AuthenticateHeaders(c)
		if err != nil {
			return err
		}
		caller := ""
		if p != nil {
			caller = p.AgentID
		}
		return httpx.OK(c, 200, fiber.Map{"caller": caller})
	})
	target := map[string]any{"agent_id": a.id, "embassy_certificate": json.RawMessage(a.cert)}
	r := testkit.Do(t, app, testkit.Request{Method: "POST", Path: "/target", Body: target})
	r.ExpectStatus(t, 200)
	if r.Body["caller"] != "" {
		t.Fatalf("body credentials were read as the caller's: %s", r.Raw)
	}
	r = testkit.Do(t, app, testkit.Request{Method: "POST", Path: "/target", Body: target, Headers: headers(b.id, b.cert)})
	r.ExpectStatus(t, 200)
	if r.Body["caller"] != b.id {
		t.Fatalf("caller %v, want %s", r.Body["caller"], b.id)
	}
}

func signed(a agent, method, path string, t int64, body []byte) map[string]string {
	h := headers(a.id, a.cert)
	h["X-Agent-Signature"] = auth.SignRequest(a.key, method, path, t, body)
	return h
}

func TestRequestSignatures(t *testing.T) {
	f := newFixture(t)
	a := f.agent(t, nil)
	now := time.Now().Unix()

	r := testkit.Do(t, f.app, testkit.Request{Method: "GET", Path: "/echo?x=1", Headers: signed(a, "GET", "/echo?x=1", now, nil)})
	r.ExpectStatus(t, 200)
	if r.Body["signed"] != true {
		t.Fatal("a valid signature must mark the request signed")
	}
	body := []byte(`{"hello":"world"}`)
	testkit.Do(t, f.app, testkit.Request{Method: "POST", Path: "/echo", Body: body, Headers: signed(a, "POST", "/echo", now, body)}).ExpectStatus(t, 200)

	cases := []struct {
		name    string
		headers map[string]string
		path    string
		body    []byte
	}{
		{"§2 replayed signature", signed(a, "GET", "/echo?x=1", now, nil), "/echo?x=1", nil},
		{"§2 t 301 s in the past", signed(a, "GET", "/echo", now-301, nil), "/echo", nil},
		{"§2 t 301 s in the future", signed(a, "GET", "/echo", now+301, nil), "/echo", nil},
		{"§2 signature over another path", signed(a, "GET", "/other", now+1, nil), "/echo", nil},
		{"§2 signature over another body", signed(a, "POST", "/echo", now+2, []byte(`{}`)), "/echo", body},
		{"§2 signature by another key", func() map[string]string {
			b := f.agent(t, nil)
			h := headers(a.id, a.cert)
			h["X-Agent-Signature"] = auth.SignRequest(b.key, "GET", "/echo", now+3, nil)
			return h
		}(), "/echo", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			method := "GET"
			var body any
			if c.body != nil {
				method, body = "POST", c.body
			}
			testkit.Do(t, f.app, testkit.Request{Method: method, Path: c.path, Body: body, Headers: c.headers}).ExpectError(t, 401, "unauthenticated")
		})
	}
	// 299 s off is still inside the window.
	testkit.Do(t, f.app, testkit.Request{Method: "GET", Path: "/echo", Headers: signed(a, "GET", "/echo", now-299, nil)}).ExpectStatus(t, 200)
}

func TestRequestSignatureNonce(t *testing.T) {
	f := newFixture(t)
	a := f.agent(t, nil)
	now := time.Now().Unix()
	withNonce := func(n string) map[string]string {
		h := headers(a.id, a.cert)
		h["X-Agent-Signature"] = auth.SignRequestNonce(a.key, "GET", "/echo", now, nil, n)
		return h
	}
	// Two identical requests in the same second: distinct nonces, both accepted.
	testkit.Do(t, f.app, testkit.Request{Method: "GET", Path: "/echo", Headers: withNonce("first")}).ExpectStatus(t, 200)
	testkit.Do(t, f.app, testkit.Request{Method: "GET", Path: "/echo", Headers: withNonce("second")}).ExpectStatus(t, 200)
	// The same nonce again is a replay, and the hint names the nonce.
	r := testkit.Do(t, f.app, testkit.Request{Method: "GET", Path: "/echo", Headers: withNonce("first")})
	r.ExpectError(t, 401, "unauthenticated")
	if hint, _ := r.Body["hint"].(string); !strings.Contains(hint, "nonce") {
		t.Fatalf("replay hint %q must tell the agent about the nonce", hint)
	}
	// The nonce is covered by the signature: changing it breaks the signature.
	h := withNonce("third")
	h["X-Agent-Signature"] = strings.Replace(h["X-Agent-Signature"], "n=third", "n=forth", 1)
	testkit.Do(t, f.app, testkit.Request{Method: "GET", Path: "/echo", Headers: h}).ExpectError(t, 401, "unauthenticated")
	for _, bad := range []string{"", "has space", "semi;colon", strings.Repeat("x", auth.MaxNonceLen+1)} {
		h := headers(a.id, a.cert)
		h["X-Agent-Signature"] = "t=" + strconv.FormatInt(now, 10) + ",n=" + bad + ",sig=" + strings.Split(auth.SignRequest(a.key, "GET", "/echo", now, nil), "sig=")[1]
		testkit.Do(t, f.app, testkit.Request{Method: "GET", Path: "/echo", Headers: h}).ExpectError(t, 401, "unauthenticated")
	}
}

func TestAmbassadorToken(t *testing.T) {
	app := httpx.NewApp(httpx.Options{Service: "t"})
	app.Get("/admin", auth.Ambassador("correct-horse-battery-staple"), func(c *fiber.Ctx) error { return httpx.OK(c, 200, nil) })
	cases := []struct {
		name, header string
		status       int
	}{
		{"§2 right token", "Bearer correct-horse-battery-staple", 200},
		{"§11 wrong token", "Bearer correct-horse-battery-stapler", 401},
		{"§11 prefix of the token", "Bearer correct", 401},
		{"§11 no bearer scheme", "correct-horse-battery-staple", 401},
		{"§11 no header", "", 401},
	}
	for _, c := range cases {
		h := map[string]string{}
		if c.header != "" {
			h["Authorization"] = c.header
		}
		r := testkit.Do(t, app, testkit.Request{Method: "GET", Path: "/admin", Headers: h})
		if r.Status != c.status {
			t.Errorf("%s: status %d", c.name, r.Status)
		}
	}
}
