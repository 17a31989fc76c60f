package client

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"time"
)

// DevCertificate is what the development identity provider issues.
type DevCertificate struct {
	AgentID     string          `json:"agent_id"`
	Certificate json.RawMessage `json:"certificate"`
	// PrivateKey is the base64 Ed25519 seed, only when no public key was sent.
	PrivateKey string `json:"private_key,omitempty"`
}

// Identity turns the answer into an Identity (with the private key when
// the provider made the key pair).
func (d *DevCertificate) Identity() (Identity, error) {
	id := Identity{AgentID: d.AgentID, Certificate: d.Certificate}
	if d.PrivateKey != "" {
		key, err := PrivateKeyFromSeed(d.PrivateKey)
		if err != nil {
			return id, err
		}
		id.PrivateKey = key
	}
	return id, nil
}

// DevIssueCertificate asks the development provider for a certificate
// (POST /dev/idp/register). With publicKey nil the provider makes the key
// pair and answers the private key once.
func (c *Client) DevIssueCertificate(ctx context.Context, agentName string, publicKey ed25519.PublicKey) (*DevCertificate, error) {
	body := map[string]string{"agent_name": agentName}
	if publicKey != nil {
		body["public_key"] = base64.StdEncoding.EncodeToString(publicKey)
	}
	var out DevCertificate
	return &out, c.do(ctx, call{method: "POST", path: "/dev/idp/register", body: body}, &out)
}

// DevRevocation is a revoked agent.
type DevRevocation struct {
	AgentID   string    `json:"agent_id"`
	RevokedAt time.Time `json:"revoked_at"`
}

// DevRevoke revokes a development certificate: the client's own, or any
// with the ambassador token (POST /dev/idp/revoke).
func (c *Client) DevRevoke(ctx context.Context, agentID string) (*DevRevocation, error) {
	var out DevRevocation
	body := map[string]string{"agent_id": agentID}
	return &out, c.do(ctx, call{method: "POST", path: "/dev/idp/revoke", body: body, auth: agentOrAmb}, &out)
}

// DevKeys are the development provider's public keys.
type DevKeys struct {
	Keys []struct {
		Kid       string `json:"kid"`
		PublicKey string `json:"public_key"`
	} `json:"keys"`
}

// DevKeys reads the development provider's keys (GET /dev/idp/keys).
func (c *Client) DevKeys(ctx context.Context) (*DevKeys, error) {
	var out DevKeys
	return &out, c.do(ctx, call{method: "GET", path: "/dev/idp/keys"}, &out)
}

// DevRevocations is the development provider's revocation list.
type DevRevocations struct {
	Revoked []DevRevocation `json:"revoked"`
}

// DevRevocations reads the revocation list (GET /dev/idp/revocations).
func (c *Client) DevRevocations(ctx context.Context) (*DevRevocations, error) {
	var out DevRevocations
	return &out, c.do(ctx, call{method: "GET", path: "/dev/idp/revocations"}, &out)
}

// DevVerdict is the provider's view of a certificate.
type DevVerdict struct {
	Valid   bool   `json:"valid"`
	Revoked bool   `json:"revoked"`
	AgentID string `json:"agent_id,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// DevVerify asks the provider to check a certificate (POST /dev/idp/verify).
func (c *Client) DevVerify(ctx context.Context, cert json.RawMessage) (*DevVerdict, error) {
	var out DevVerdict
	body := map[string]json.RawMessage{"certificate": cert}
	return &out, c.do(ctx, call{method: "POST", path: "/dev/idp/verify", body: body}, &out)
}
