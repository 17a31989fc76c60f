// Package auth verifies agent identity (CONTRACT §2): provider certificates
// signed with Ed25519 over RFC 8785 canonical JSON, the provider's revocation
// list, request signatures with a replay cache, and the ambassador token.
package auth

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	"github.com/gowebpki/jcs"
)

// Certificate is a provider-issued identity. Raw keeps every field exactly as
// received, because the signature covers unknown fields too.
type Certificate struct {
	Issuer    string
	AgentID   string
	AgentName string
	PublicKey string
	IssuedAt  string
	ExpiresAt string
	SigAlg    string
	Kid       string
	Signature string
	raw       map[string]json.RawMessage
}

var errCertShape = fmt.Errorf("certificate is not a JSON object of string fields")

// ParseCertificate reads a certificate from JSON or from base64-encoded JSON.
func ParseCertificate(b []byte) (*Certificate, error) {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] != '{' {
		dec, err := decodeBase64(string(b))
		if err != nil {
			return nil, errCertShape
		}
		b = bytes.TrimSpace(dec)
	}
	var raw map[string]json.RawMessage
	if len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &raw) != nil {
		return nil, errCertShape
	}
	c := &Certificate{raw: raw}
	fields := []struct {
		name     string
		dst      *string
		required bool
	}{
		{"issuer", &c.Issuer, false}, {"agent_id", &c.AgentID, true}, {"agent_name", &c.AgentName, false},
		{"public_key", &c.PublicKey, true}, {"issued_at", &c.IssuedAt, false}, {"expires_at", &c.ExpiresAt, false},
		{"sig_alg", &c.SigAlg, true}, {"kid", &c.Kid, true}, {"signature", &c.Signature, true},
	}
	for _, f := range fields {
		v, ok := raw[f.name]
		if !ok || string(v) == "null" {
			if f.required {
				return nil, fmt.Errorf("certificate lacks %q", f.name)
			}
			continue
		}
		if err := json.Unmarshal(v, f.dst); err != nil {
			return nil, fmt.Errorf("certificate field %q must be a string", f.name)
		}
	}
	return c, nil
}

// SigningInput is the RFC 8785 canonical JSON of the certificate without its signature.
func (c *Certificate) SigningInput() ([]byte, error) {
	unsigned := make(map[string]json.RawMessage, len(c.raw))
	for k, v := range c.raw {
		if k != "signature" {
			unsigned[k] = v
		}
	}
	b, err := json.Marshal(unsigned)
	if err != nil {
		return nil, err
	}
	return jcs.Transform(b)
}

// Key returns the agent's Ed25519 public key.
func (c *Certificate) Key() (ed25519.PublicKey, error) {
	b, err := decodeBase64(c.PublicKey)
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("certificate public_key is not a base64 Ed25519 key")
	}
	return ed25519.PublicKey(b), nil
}

// Expired reports whether the certificate's expires_at is before now.
// Certificates without expires_at do not expire.
func (c *Certificate) Expired(now time.Time) (bool, error) {
	if c.ExpiresAt == "" {
		return false, nil
	}
	t, err := time.Parse(time.RFC3339Nano, c.ExpiresAt)
	if err != nil {
		return true, fmt.Errorf("certificate expires_at is not an ISO 8601 timestamp")
	}
	return !now.Before(t), nil
}

// JSON returns the certificate as received.
func (c *Certificate) JSON() json.RawMessage {
	b, _ := json.Marshal(c.raw)
	return b
}

// decodeBase64 accepts standard or URL alphabets, padded or not: certificates
// and keys arrive from many client libraries.
func decodeBase64(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, fmt.Errorf("not base64")
}

func encodeStd(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
