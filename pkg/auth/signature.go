package auth

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"sharedworld.dev/pkg/problem"
)

// SignatureWindow is how far a request signature's t may be from the wall clock.
const SignatureWindow = 300 * time.Second

const hintSig = "Send X-Agent-Signature: t=<unix seconds>,n=<nonce>,sig=<base64 Ed25519 signature by your certificate key over METHOD\\nPATH?QUERY\\n<t>\\n<hex sha256 of body>\\n<nonce>>; n is optional (without it the last line is left out) and lets two identical requests in the same second carry different signatures."

// MaxNonceLen bounds the optional nonce of a request signature.
const MaxNonceLen = 64

// RequestSignature is a parsed X-Agent-Signature header.
type RequestSignature struct {
	T     int64
	Nonce string // optional; "" when the header has no n
	Sig   []byte
	raw   string
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
		case "n":
			if !validNonce(val) {
				return rs, problem.Unauthenticated("X-Agent-Signature n is not a nonce of 1 to 64 letters, digits, '-' or '_'.", hintSig)
			}
			rs.Nonce = val
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

func validNonce(n string) bool {
	if n == "" || len(n) > MaxNonceLen {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// SigningString is what a request signature covers; a nonce, when the
// header carries one, is a fifth line.
func SigningString(method, pathAndQuery string, t int64, body []byte, nonce string) []byte {
	sum := sha256.Sum256(body)
	s := method + "\n" + pathAndQuery + "\n" + strconv.FormatInt(t, 10) + "\n" + hex.EncodeToString(sum[:])
	if nonce != "" {
		s += "\n" + nonce
	}
	return []byte(s)
}

// SignRequest returns an X-Agent-Signature value without a nonce.
func SignRequest(key ed25519.PrivateKey, method, pathAndQuery string, t int64, body []byte) string {
	return SignRequestNonce(key, method, pathAndQuery, t, body, "")
}

// SignRequestNonce returns an X-Agent-Signature value carrying nonce (none
// when it is ""); clients use a fresh random nonce per request.
func SignRequestNonce(key ed25519.PrivateKey, method, pathAndQuery string, t int64, body []byte, nonce string) string {
	sig := ed25519.Sign(key, SigningString(method, pathAndQuery, t, body, nonce))
	h := "t=" + strconv.FormatInt(t, 10)
	if nonce != "" {
		h += ",n=" + nonce
	}
	return h + ",sig=" + encodeStd(sig)
}

// safeMethod reports whether method changes nothing (RFC 9110 §9.2.1).
func safeMethod(method string) bool {
	switch method {
	case "GET", "HEAD", "OPTIONS":
		return true
	}
	return false
}

// VerifyRequest checks a request signature against the certificate's key,
// the 300 s window (wall clock) and the replay cache.
func VerifyRequest(ctx context.Context, cert *Certificate, rs RequestSignature, method, pathAndQuery string, body []byte, replay *ReplayCache, now time.Time) error {
	if d := now.Unix() - rs.T; d > int64(SignatureWindow.Seconds()) || -d > int64(SignatureWindow.Seconds()) {
		return problem.Unauthenticated("X-Agent-Signature t is more than 300 s away from the server clock.", "Sign with the current unix time; check your clock.")
	}
	key, err := cert.Key()
	if err != nil {
		return errBadCert
	}
	if !ed25519.Verify(key, SigningString(method, pathAndQuery, rs.T, body, rs.Nonce), rs.Sig) {
		return problem.Unauthenticated("X-Agent-Signature does not verify with the certificate's public_key.", hintSig)
	}
	first, err := replay.firstUse(ctx, rs, now, safeMethod(method))
	if err != nil {
		return err
	}
	if !first {
		return problem.Unauthenticated("This request signature was already used.", "A signature is accepted once, by every replica and across restarts: sign every request afresh, and add a fresh random nonce (n=) to X-Agent-Signature so two identical requests in the same second differ.")
	}
	return nil
}
