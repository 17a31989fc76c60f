package identity_test

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"sharedworld.dev/pkg/auth"
)

func credentials(t *testing.T, r map[string]any) map[string]string {
	t.Helper()
	cert, err := json.Marshal(r["certificate"])
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{"X-Agent-Id": r["agent_id"].(string), "X-Agent-Certificate": string(cert)}
}

func TestDevProviderIssuesTrustedCertificates(t *testing.T) {
	w := newWorld(t)
	r := w.do(t, http.MethodPost, "/dev/idp/register", map[string]any{"agent_name": "Dev"}, nil)
	r.ExpectStatus(t, 201)
	seed, err := base64.StdEncoding.DecodeString(r.Body["private_key"].(string))
	if err != nil || len(seed) != ed25519.SeedSize {
		t.Fatalf("private_key must be a base64 32-byte Ed25519 seed: %v", r.Body["private_key"])
	}
	cert := r.Body["certificate"].(map[string]any)
	if cert["public_key"] != base64.StdEncoding.EncodeToString(ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)) {
		t.Fatal("the certificate's public_key must belong to the returned private key")
	}
	if _, has := cert["expires_at"]; has {
		t.Fatal("§11 development certificates carry no expires_at")
	}
	h := credentials(t, r.Body)
	w.register(t, testAgentFrom(h), nil).ExpectStatus(t, 201)

	// With the agent's own public key, no private key comes back.
	pub, _, _ := ed25519.GenerateKey(nil)
	r = w.do(t, http.MethodPost, "/dev/idp/register", map[string]any{"agent_name": "Own", "public_key": base64.StdEncoding.EncodeToString(pub)}, nil)
	r.ExpectStatus(t, 201)
	if _, has := r.Body["private_key"]; has {
		t.Fatal("no private key may be returned when the agent sent its own public key")
	}

	r = w.do(t, http.MethodGet, "/dev/idp/keys", nil, nil)
	keys := r.Body["keys"].([]any)
	if len(keys) != 1 || keys[0].(map[string]any)["kid"] != cert["kid"] {
		t.Fatalf("keys: %s", r.Raw)
	}
}

func TestDevProviderErrors(t *testing.T) {
	w := newWorld(t)
	cases := []struct {
		name   string
		body   any
		status int
		code   string
	}{
		{"§2 agent_name missing", map[string]any{}, 400, "invalid_request"},
		{"§2 agent_name empty", map[string]any{"agent_name": " "}, 400, "invalid_request"},
		{"§2 agent_name not a string", map[string]any{"agent_name": 7}, 400, "invalid_request"},
		{"§2 public_key not base64", map[string]any{"agent_name": "x", "public_key": "***"}, 400, "invalid_request"},
		{"§2 public_key of the wrong size", map[string]any{"agent_name": "x", "public_key": base64.StdEncoding.EncodeToString([]byte("short"))}, 400, "invalid_request"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w.do(t, http.MethodPost, "/dev/idp/register", c.body, nil).ExpectError(t, c.status, c.code)
		})
	}
}

func TestDevProviderRevocation(t *testing.T) {
	w := newWorld(t)
	a := w.do(t, http.MethodPost, "/dev/idp/register", map[string]any{"agent_name": "A"}, nil).Body
	b := w.do(t, http.MethodPost, "/dev/idp/register", map[string]any{"agent_name": "B"}, nil).Body
	ha, hb := credentials(t, a), credentials(t, b)
	w.do(t, http.MethodGet, "/api/world/whoami", nil, ha).ExpectStatus(t, 200)
	// CONTRACT §2: the id and the certificate come as a pair; a certificate alone is 401.
	w.do(t, http.MethodGet, "/api/world/whoami", nil, map[string]string{"X-Agent-Certificate": ha["X-Agent-Certificate"]}).ExpectError(t, 401, "unauthenticated")

	// The body's agent_id names the agent to revoke, not the caller: without
	// credentials the answer says revoking needs them, not that an agent_id
	// came without a certificate.
	r := w.do(t, http.MethodPost, "/dev/idp/revoke", map[string]any{"agent_id": a["agent_id"]}, nil)
	r.ExpectError(t, 401, "unauthenticated")
	if msg, _ := r.Body["message"].(string); !strings.Contains(msg, "Revoking needs") {
		t.Fatalf("revoke without credentials: %s", r.Raw)
	}
	// B (a known caller) asking to revoke A: not allowed, 403 (CONTRACT §1).
	w.do(t, http.MethodPost, "/dev/idp/revoke", map[string]any{"agent_id": a["agent_id"]}, hb).ExpectError(t, 403, "permission_denied")
	w.do(t, http.MethodPost, "/dev/idp/revoke", map[string]any{}, ha).ExpectError(t, 400, "invalid_request")
	r = w.do(t, http.MethodPost, "/dev/idp/revoke", map[string]any{"agent_id": a["agent_id"]}, ha)
	r.ExpectStatus(t, 200)
	if r.Body["revoked_at"] == nil {
		t.Fatalf("revoke must answer revoked_at: %s", r.Raw)
	}
	w.do(t, http.MethodGet, "/api/world/whoami", nil, ha).ExpectError(t, 401, "certificate_revoked")
	w.do(t, http.MethodGet, "/api/world/whoami", nil, hb).ExpectStatus(t, 200)

	r = w.do(t, http.MethodGet, "/dev/idp/revocations", nil, nil)
	list := r.Body["revoked"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["agent_id"] != a["agent_id"] {
		t.Fatalf("revocations: %s", r.Raw)
	}
	// The ambassador may revoke anyone; an unknown agent is 404.
	admin := map[string]string{"Authorization": "Bearer test-ambassador-token-0123456789"}
	w.do(t, http.MethodPost, "/dev/idp/revoke", map[string]any{"agent_id": b["agent_id"]}, admin).ExpectStatus(t, 200)
	w.do(t, http.MethodPost, "/dev/idp/revoke", map[string]any{"agent_id": "emb_000000000000000000000000"}, admin).ExpectError(t, 404, "not_found")

	// Remote-verify answers for services in that mode.
	r = w.do(t, http.MethodPost, "/dev/idp/verify", map[string]any{"certificate": a["certificate"]}, nil)
	if r.Body["valid"] != true || r.Body["revoked"] != true {
		t.Fatalf("verify of a revoked certificate: %s", r.Raw)
	}
	c := w.do(t, http.MethodPost, "/dev/idp/register", map[string]any{"agent_name": "C"}, nil).Body
	r = w.do(t, http.MethodPost, "/dev/idp/verify", map[string]any{"certificate": c["certificate"]}, nil)
	if r.Body["valid"] != true || r.Body["revoked"] != false || r.Body["agent_id"] != c["agent_id"] {
		t.Fatalf("verify of a good certificate: %s", r.Raw)
	}
	forged := c["certificate"].(map[string]any)
	forged["agent_name"] = "Mallory"
	r = w.do(t, http.MethodPost, "/dev/idp/verify", map[string]any{"certificate": forged}, nil)
	if r.Body["valid"] != false {
		t.Fatalf("verify of a tampered certificate: %s", r.Raw)
	}
	// A certificate is an object or a string: another JSON type is a bad
	// request (400), not a verdict about a certificate.
	for _, v := range []any{5, 1e300, []any{1}, true} {
		w.do(t, http.MethodPost, "/dev/idp/verify", map[string]any{"certificate": v}, nil).ExpectError(t, 400, "invalid_request")
	}
	w.do(t, http.MethodPost, "/dev/idp/verify", map[string]any{"certificate": nil}, nil).ExpectError(t, 400, "invalid_request")
}

// TestOneSignatureIsAcceptedOnceWhoeverPresentsIt: §2 a request signature
// is accepted once. The development provider certifies any public key, so
// two identities may share one; a signature made with it verifies for both,
// and must still be used only once.
func TestOneSignatureIsAcceptedOnceWhoeverPresentsIt(t *testing.T) {
	w := newWorld(t)
	ada := w.do(t, http.MethodPost, "/dev/idp/register", map[string]any{"agent_name": "Ada"}, nil)
	ada.ExpectStatus(t, 201)
	seed, _ := base64.StdEncoding.DecodeString(ada.Body["private_key"].(string))
	key := ed25519.NewKeyFromSeed(seed)
	mallory := w.do(t, http.MethodPost, "/dev/idp/register",
		map[string]any{"agent_name": "Mallory", "public_key": base64.StdEncoding.EncodeToString(key.Public().(ed25519.PublicKey))}, nil)
	mallory.ExpectStatus(t, 201)

	sig := auth.SignRequestNonce(key, "GET", "/api/world/whoami", time.Now().Unix(), nil, "once")
	asMallory, asAda := credentials(t, mallory.Body), credentials(t, ada.Body)
	asMallory["X-Agent-Signature"], asAda["X-Agent-Signature"] = sig, sig
	w.do(t, http.MethodGet, "/api/world/whoami", nil, asMallory).ExpectStatus(t, 200)
	w.do(t, http.MethodGet, "/api/world/whoami", nil, asAda).ExpectError(t, 401, "unauthenticated")
}
