package auth

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/gowebpki/jcs"
)

// Issuer signs certificates: the development identity provider and the test kit use it.
type Issuer struct {
	Name   string
	Kid    string
	Key    ed25519.PrivateKey
	Prefix string // agent_id prefix, "emb" by default
}

// NewAgentID returns prefix_<24 lowercase hex> from a CSPRNG.
func NewAgentID(prefix string) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return prefix + "_" + hex.EncodeToString(b[:])
}

// PublicKey returns the issuer's public key in base64.
func (i Issuer) PublicKey() string {
	return base64.StdEncoding.EncodeToString(i.Key.Public().(ed25519.PublicKey))
}

// Issue signs a certificate for a new agent. Fields may add or override
// certificate fields before signing (tests use it to set expires_at).
func (i Issuer) Issue(agentName string, agentKey ed25519.PublicKey, issuedAt time.Time, fields map[string]any) (agentID string, cert json.RawMessage, err error) {
	prefix := i.Prefix
	if prefix == "" {
		prefix = "emb"
	}
	agentID = NewAgentID(prefix)
	doc := map[string]any{
		"issuer":     i.Name,
		"agent_id":   agentID,
		"agent_name": agentName,
		"public_key": base64.StdEncoding.EncodeToString(agentKey),
		"issued_at":  issuedAt.UTC().Format("2006-01-02T15:04:05.000Z"),
		"sig_alg":    "ed25519",
		"kid":        i.Kid,
	}
	for k, v := range fields {
		doc[k] = v
	}
	if id, ok := doc["agent_id"].(string); ok {
		agentID = id
	}
	cert, err = i.Sign(doc)
	return agentID, cert, err
}

// Sign signs an arbitrary certificate document (without "signature").
func (i Issuer) Sign(doc map[string]any) (json.RawMessage, error) {
	delete(doc, "signature")
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	canon, err := jcs.Transform(b)
	if err != nil {
		return nil, fmt.Errorf("canonicalise certificate: %w", err)
	}
	doc["signature"] = base64.StdEncoding.EncodeToString(ed25519.Sign(i.Key, canon))
	return json.Marshal(doc)
}
