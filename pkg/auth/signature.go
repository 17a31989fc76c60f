package auth

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"sync"
	"time"

	"sharedworld.dev/pkg/problem"
)

// SignatureWindow is how far a request signature's t may be from the wall clock.
const SignatureWindow = 300 * time.Second

const hintSig = "Send X-Agent-Signature: t=<unix seconds>,sig=<base64 Ed25519 signature by your certificate key over METHOD\\nPATH?QUERY\\n<t>\\n<hex sha256 of body>>, with a fresh t for every request."

// RequestSignature is a parsed X-Agent-Signature header.
type RequestSignature struct {
	T   int64
	Sig []byte
	raw string
}

// ParseSignatureHeader parses `t=<unix seconds>,sig=<base64>`.
func ParseSignatureHeader(h string) (RequestSignature, error) {
	var rs RequestSignature
	var haveT, haveSig bool
	for _, part := range strings.Split(h, ",") {
		k, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return rs, problem.Unauthenticated("X-Agent-Signature is malformed.", hintSig)
		}
		switch k {
		case "t":
			t, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				return rs, problem.Unauthenticated("X-Agent-Signature t is not unix seconds.", hintSig)
			}
			rs.T, haveT = t, true
		case "sig":
			b, err := decodeBase64(val)
			if err != nil || len(b) != ed25519.SignatureSize {
				return rs, problem.Unauthenticated("X-Agent-Signature sig is not a base64 Ed25519 signature.", hintSig)
			}
			rs.Sig, haveSig = b, true
		}
	}
	if !haveT || !haveSig {
		return rs, problem.Unauthenticated("X-Agent-Signature needs both t and sig.", hintSig)
	}
	rs.raw = h
	return rs, nil
}

// SigningString is what a request signature covers.
func SigningString(method, pathAndQuery string, t int64, body []byte) []byte {
	sum := sha256.Sum256(body)
	return []byte(method + "\n" + pathAndQuery + "\n" + strconv.FormatInt(t, 10) + "\n" + hex.EncodeToString(sum[:]))
}

// SignRequest returns an X-Agent-Signature value (clients and tests use it).
func SignRequest(key ed25519.PrivateKey, method, pathAndQuery string, t int64, body []byte) string {
	sig := ed25519.Sign(key, SigningString(method, pathAndQuery, t, body))
	return "t=" + strconv.FormatInt(t, 10) + ",sig=" + encodeStd(sig)
}

// ReplayCache remembers (agent, t, sig) triples inside the window.
type ReplayCache struct {
	mu   sync.Mutex
	seen map[string]int64
	last time.Time
}

// NewReplayCache returns an empty cache.
func NewReplayCache() *ReplayCache { return &ReplayCache{seen: make(map[string]int64)} }

// firstUse records the triple and reports whether it was new.
func (r *ReplayCache) firstUse(agentID string, rs RequestSignature, now time.Time) bool {
	key := agentID + "|" + strconv.FormatInt(rs.T, 10) + "|" + encodeStd(rs.Sig)
	r.mu.Lock()
	defer r.mu.Unlock()
	if now.Sub(r.last) > time.Minute {
		cutoff := now.Add(-SignatureWindow).Unix()
		for k, t := range r.seen {
			if t < cutoff {
				delete(r.seen, k)
			}
		}
		r.last = now
	}
	if _, dup := r.seen[key]; dup {
		return false
	}
	r.seen[key] = rs.T
	return true
}

// VerifyRequest checks a request signature against the certificate's key,
// the 300 s window (wall clock) and the replay cache.
func VerifyRequest(cert *Certificate, rs RequestSignature, method, pathAndQuery string, body []byte, replay *ReplayCache, now time.Time) error {
	if d := now.Unix() - rs.T; d > int64(SignatureWindow.Seconds()) || -d > int64(SignatureWindow.Seconds()) {
		return problem.Unauthenticated("X-Agent-Signature t is more than 300 s away from the server clock.", "Sign with the current unix time; check your clock.")
	}
	key, err := cert.Key()
	if err != nil {
		return errBadCert
	}
	if !ed25519.Verify(key, SigningString(method, pathAndQuery, rs.T, body), rs.Sig) {
		return problem.Unauthenticated("X-Agent-Signature does not verify with the certificate's public_key.", hintSig)
	}
	if !replay.firstUse(cert.AgentID, rs, now) {
		return problem.Unauthenticated("This request signature was already used.", "Sign every request afresh; a signature is accepted once.")
	}
	return nil
}
