package auth

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/pkg/ratelimit"
)

// Principal is the verified caller of a request.
type Principal struct {
	AgentID string
	Name    string // the certificate's agent_name
	Cert    *Certificate
	// Signed is true when the request carried a valid X-Agent-Signature.
	Signed bool
}

type principalKey struct{}

// PrincipalOf returns the request's verified caller, if any.
func PrincipalOf(c *fiber.Ctx) (*Principal, bool) {
	p, ok := c.Locals(principalKey{}).(*Principal)
	return p, ok && p != nil
}

// Middleware authenticates agents; one instance is shared by a service's routes.
type Middleware struct {
	Verifier *Verifier
	Replay   *ReplayCache
	// RequireSignatures is consulted per request (the World resource may flip it).
	RequireSignatures func() bool
	// Seen is told about every authenticated request (presence).
	Seen func(ctx context.Context, agentID string, signed bool)
	Now  func() time.Time
	// Limits counts every write (POST, PUT, PATCH, DELETE) to a route that
	// requires credentials against the agent's ratelimit.Writes budget (a
	// route with optional credentials reads); nil counts nothing.
	Limits *ratelimit.Limiter
}

var certHeaders = []string{"X-Agent-Certificate", "X-Embassy-Certificate", "X-Embassy-Artifact"}

const hintNoCreds = "Send X-Agent-Id and X-Agent-Certificate headers (or agent_id and embassy_certificate body fields) with the certificate from your identity provider."

// Required rejects requests without valid credentials.
func (m *Middleware) Required() fiber.Handler { return m.handler(true) }

// Optional authenticates when credentials are present and passes anonymous requests through.
func (m *Middleware) Optional() fiber.Handler { return m.handler(false) }

func (m *Middleware) handler(required bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		p, err := m.Authenticate(c)
		if err != nil {
			return err
		}
		if p == nil {
			if required {
				return problem.Unauthenticated("No credentials were sent.", hintNoCreds)
			}
			return anonymous(c.Next())
		}
		var taken ratelimit.Taken
		if required && isWrite(c.Method()) {
			if taken, err = m.Limits.Allow(c.UserContext(), ratelimit.Writes, p.AgentID); err != nil {
				return err
			}
		}
		c.Locals(principalKey{}, p)
		if m.Seen != nil {
			m.Seen(c.UserContext(), p.AgentID, p.Signed)
		}
		err = c.Next()
		if Refused(c, err) {
			taken.Give(c.UserContext())
		}
		return err
	}
}

func isWrite(method string) bool {
	switch method {
	case fiber.MethodPost, fiber.MethodPut, fiber.MethodPatch, fiber.MethodDelete:
		return true
	}
	return false
}

// anonymous turns a refusal of an anonymous caller into 401: 403 is for a
// known caller who is not allowed, and a caller who sent no credentials is
// not known (CONTRACT §1). The handler's message and hint stay.
func anonymous(err error) error {
	pe, ok := problem.As(err)
	if !ok || pe.Kind != problem.KindPermission {
		return err
	}
	hint := pe.Hint
	if hint == "" {
		hint = hintNoCreds
	}
	return problem.Unauthenticated(pe.Message, hint)
}

type bodyCredentials struct {
	AgentID            json.RawMessage `json:"agent_id"`
	EmbassyCertificate json.RawMessage `json:"embassy_certificate"`
	EmbassyArtifact    json.RawMessage `json:"embassy_artifact"`
	Certificate        json.RawMessage `json:"certificate"`
}

// Authenticate verifies the request's credentials, from its headers or its
// JSON body; nil, nil means none were sent.
func (m *Middleware) Authenticate(c *fiber.Ctx) (*Principal, error) {
	return m.authenticate(c, true)
}

// AuthenticateHeaders verifies credentials carried in headers only, for a
// route whose body fields mean something else (the agent_id of
// /dev/idp/revoke names the agent to revoke, not the caller).
func (m *Middleware) AuthenticateHeaders(c *fiber.Ctx) (*Principal, error) {
	return m.authenticate(c, false)
}

func (m *Middleware) authenticate(c *fiber.Ctx, fromBody bool) (*Principal, error) {
	headerID := c.Get("X-Agent-Id")
	var headerCert []byte
	for _, h := range certHeaders {
		if v := c.Get(h); v != "" {
			headerCert = []byte(v)
			break
		}
	}
	var bodyID string
	var bodyCert []byte
	if fromBody {
		var err error
		if bodyID, bodyCert, err = credentialsInBody(c.Body()); err != nil {
			return nil, err
		}
	}
	if headerCert == nil && bodyCert == nil {
		if headerID != "" || bodyID != "" {
			return nil, problem.Unauthenticated("An agent_id was sent without a certificate.", hintNoCreds)
		}
		return nil, nil
	}
	if headerID == "" && bodyID == "" {
		// CONTRACT §2 carries credentials as a pair: the id says which agent
		// the caller claims to be, the certificate proves it.
		return nil, problem.Unauthenticated("A certificate was sent without an agent_id.", hintNoCreds)
	}
	if headerID != "" && bodyID != "" && headerID != bodyID {
		return nil, problem.Unauthenticated("The agent_id in the headers and the one in the body differ.", "Send one agent_id, or the same one in both places.")
	}
	certBytes := headerCert
	if certBytes == nil {
		certBytes = bodyCert
	}
	cert, err := m.Verifier.Verify(c.UserContext(), certBytes)
	if err != nil {
		return nil, err
	}
	if headerCert != nil && bodyCert != nil && !bytes.Equal(headerCert, bodyCert) {
		other, err := ParseCertificate(bodyCert)
		if err != nil || other.AgentID != cert.AgentID {
			return nil, problem.Unauthenticated("The certificates in the headers and in the body are for different agents.", "Send one certificate.")
		}
	}
	for _, id := range []string{headerID, bodyID} {
		if id != "" && id != cert.AgentID {
			return nil, problem.Unauthenticated("The request's agent_id does not match the certificate's agent_id.", "Send the agent_id exactly as it appears in your certificate (a truncated id does not match).")
		}
	}
	p := &Principal{AgentID: cert.AgentID, Name: cert.AgentName, Cert: cert}
	now := time.Now()
	if m.Now != nil {
		now = m.Now()
	}
	if h := c.Get("X-Agent-Signature"); h != "" {
		rs, err := ParseSignatureHeader(h)
		if err != nil {
			return nil, err
		}
		if err := VerifyRequest(c.UserContext(), cert, rs, c.Method(), c.OriginalURL(), c.Body(), m.Replay, now); err != nil {
			return nil, err
		}
		p.Signed = true
	} else if m.RequireSignatures != nil && m.RequireSignatures() {
		return nil, problem.Unauthenticated("This world requires a request signature on every authenticated request.", hintSig)
	}
	return p, nil
}

// credentialsInBody reads agent_id and the certificate (any alias) from a JSON
// object body. A certificate may be an object or a string holding JSON or base64.
func credentialsInBody(body []byte) (agentID string, cert []byte, err error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' || !bytes.Contains(body, []byte(`"`)) {
		return "", nil, nil
	}
	var bc bodyCredentials
	if json.Unmarshal(body, &bc) != nil {
		return "", nil, nil //nolint:nilerr // not our concern: the handler reports malformed JSON
	}
	if len(bc.AgentID) > 0 && string(bc.AgentID) != "null" {
		if json.Unmarshal(bc.AgentID, &agentID) != nil {
			return "", nil, problem.Unauthenticated("agent_id must be a string.", hintNoCreds)
		}
	}
	for _, raw := range []json.RawMessage{bc.EmbassyCertificate, bc.EmbassyArtifact, bc.Certificate} {
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		switch raw[0] {
		case '{':
			return agentID, raw, nil
		case '"':
			var s string
			_ = json.Unmarshal(raw, &s)
			return agentID, []byte(strings.TrimSpace(s)), nil
		default:
			return "", nil, problem.Unauthenticated("The certificate field must be a JSON object or a string.", hintNoCreds)
		}
	}
	return agentID, nil, nil
}

// Ambassador admits only requests bearing the configured token.
func Ambassador(token string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if err := CheckAmbassador(token, c.Get(fiber.HeaderAuthorization)); err != nil {
			return err
		}
		return c.Next()
	}
}

// CheckAmbassador checks an Authorization header value against the token,
// in constant time (hashes first, so length leaks nothing either).
func CheckAmbassador(token, authorization string) error {
	got, ok := strings.CutPrefix(authorization, "Bearer ")
	if token == "" || !ok || got == "" {
		return problem.Unauthenticated("This route is for the ambassador.", "Send Authorization: Bearer <ambassador token>.")
	}
	want := sha256.Sum256([]byte(token))
	sum := sha256.Sum256([]byte(got))
	if subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
		return problem.Unauthenticated("The ambassador token is wrong.", "Send Authorization: Bearer <ambassador token> exactly as configured.")
	}
	return nil
}

// Refused reports whether the handlers behind a rate limit refused the
// request (returned an error, or answered 400 or above): its count is then
// given back, since a refusal never counts toward a limit.
func Refused(c *fiber.Ctx, err error) bool {
	return err != nil || c.Response().StatusCode() >= fiber.StatusBadRequest
}
