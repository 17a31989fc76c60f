package http

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/services/identity/internal/devidp"
)

// DevIDP serves the development identity provider's routes.
type DevIDP struct {
	Provider        *devidp.Provider
	Verifier        *auth.Verifier
	Auth            *auth.Middleware
	Clock           clock.Clock
	AmbassadorToken string
}

// Routes registers /dev/idp/*.
func (d *DevIDP) Routes(r fiber.Router) {
	r.Post("/dev/idp/register", d.register)
	r.Post("/dev/idp/revoke", d.revoke)
	r.Get("/dev/idp/keys", d.keys)
	r.Get("/dev/idp/revocations", d.revocations)
	r.Post("/dev/idp/verify", d.verify)
}

type devRegisterRequest struct {
	AgentName *string `json:"agent_name"`
	PublicKey *string `json:"public_key"`
}

func (d *DevIDP) register(c *fiber.Ctx) error {
	var req devRegisterRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	if req.AgentName == nil || strings.TrimSpace(*req.AgentName) == "" {
		return problem.Invalid("agent_name is required.", `Send {"agent_name": "<your agent's name>"}; add "public_key" (base64 Ed25519) to keep your own key.`)
	}
	if utf8.RuneCountInString(*req.AgentName) > 100 {
		return problem.Validation("agent_name is too long.", "Send at most 100 characters in agent_name.")
	}
	pub := ""
	if req.PublicKey != nil {
		pub = *req.PublicKey
	}
	iss, err := d.Provider.Register(c.UserContext(), strings.TrimSpace(*req.AgentName), pub, d.Clock.Now())
	if err != nil {
		return err
	}
	body := fiber.Map{"agent_id": iss.AgentID, "certificate": json.RawMessage(iss.Cert)}
	if iss.PrivateKey != "" {
		body["private_key"] = iss.PrivateKey
	}
	return httpx.OK(c, fiber.StatusCreated, body)
}

type devRevokeRequest struct {
	AgentID *string `json:"agent_id"`
}

// revoke needs the agent's own certificate or the ambassador token: the
// development provider is open, but not to revoking other agents.
func (d *DevIDP) revoke(c *fiber.Ctx) error {
	var req devRevokeRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	if req.AgentID == nil || *req.AgentID == "" {
		return problem.Invalid("agent_id is required.", `Send {"agent_id": "<agent to revoke>"} with that agent's certificate or the ambassador token.`)
	}
	if !d.isAmbassador(c) {
		p, err := d.Auth.AuthenticateHeaders(c)
		if err != nil {
			return err
		}
		if p == nil {
			return problem.Unauthenticated("Revoking needs the agent's own certificate or the ambassador token.", "Send X-Agent-Id and X-Agent-Certificate of the agent being revoked.")
		}
		if p.AgentID != *req.AgentID {
			return problem.Permission("An agent may revoke only its own certificate.", "Send the certificate of the agent named in agent_id.")
		}
	}
	at, err := d.Provider.Revoke(c.UserContext(), *req.AgentID, d.Clock.Now())
	if err != nil {
		return err
	}
	if d.Verifier != nil {
		_ = d.Verifier.RefreshRevocations(c.UserContext())
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"agent_id": *req.AgentID, "revoked_at": clock.Timestamp(at)})
}

func (d *DevIDP) isAmbassador(c *fiber.Ctx) bool {
	return auth.CheckAmbassador(d.AmbassadorToken, c.Get(fiber.HeaderAuthorization)) == nil
}

func (d *DevIDP) keys(c *fiber.Ctx) error {
	ks, err := d.Provider.Keys(c.UserContext())
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"keys": ks})
}

func (d *DevIDP) revocations(c *fiber.Ctx) error {
	rs, err := d.Provider.Revocations(c.UserContext())
	if err != nil {
		return err
	}
	out := make([]fiber.Map, len(rs))
	for i, r := range rs {
		out[i] = fiber.Map{"agent_id": r.AgentID, "revoked_at": clock.Timestamp(r.RevokedAt)}
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"revoked": out})
}

// verify answers remote-verify requests from services in that mode.
type devVerifyRequest struct {
	Certificate json.RawMessage `json:"certificate"`
}

func (d *DevIDP) verify(c *fiber.Ctx) error {
	var req devVerifyRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	if len(req.Certificate) == 0 || string(req.Certificate) == "null" {
		return problem.Invalid("certificate is required.", `Send {"certificate": <certificate object>}.`)
	}
	raw := []byte(req.Certificate)
	if raw[0] != '{' && raw[0] != '"' {
		// Only something that could be a certificate gets a verdict.
		return problem.Invalid("certificate must be a JSON object or a string holding one.", `Send {"certificate": <certificate object>} or {"certificate": "<certificate JSON>"}.`)
	}
	if raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		raw = []byte(s)
	}
	cert, err := d.Verifier.Verify(c.UserContext(), raw)
	if pe, ok := problem.As(err); ok && pe.Kind == problem.KindRevoked {
		return httpx.OK(c, fiber.StatusOK, fiber.Map{"valid": true, "revoked": true})
	}
	if err != nil {
		return httpx.OK(c, fiber.StatusOK, fiber.Map{"valid": false, "revoked": false, "reason": err.Error()})
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"valid": true, "revoked": false, "agent_id": cert.AgentID})
}
