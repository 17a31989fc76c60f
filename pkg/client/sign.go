package client

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
)

// SigningString is what a request signature covers:
// METHOD\nPATH?QUERY\n<t>\n<hex sha256 of body>, and \n<nonce> when there is
// a nonce. It is the world's format (the auth package verifies it; a test
// holds the two together), written here so the client needs no server code.
func SigningString(method, pathAndQuery string, t int64, body []byte, nonce string) []byte {
	sum := sha256.Sum256(body)
	s := method + "\n" + pathAndQuery + "\n" + strconv.FormatInt(t, 10) + "\n" + hex.EncodeToString(sum[:])
	if nonce != "" {
		s += "\n" + nonce
	}
	return []byte(s)
}

// SignatureHeader returns the X-Agent-Signature value
// `t=<t>,n=<nonce>,sig=<base64>` (no n when nonce is "").
func SignatureHeader(key ed25519.PrivateKey, method, pathAndQuery string, t int64, body []byte, nonce string) string {
	sig := ed25519.Sign(key, SigningString(method, pathAndQuery, t, body, nonce))
	h := "t=" + strconv.FormatInt(t, 10)
	if nonce != "" {
		h += ",n=" + nonce
	}
	return h + ",sig=" + base64.StdEncoding.EncodeToString(sig)
}

// newNonce is 128 random bits in base64url: 22 of the [A-Za-z0-9_-] the
// world accepts, so two identical requests in one second sign differently.
func newNonce() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("client: nonce: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// PrivateKeyFromSeed reads the base64 Ed25519 seed the development provider
// returns as private_key.
func PrivateKeyFromSeed(b64 string) (ed25519.PrivateKey, error) {
	seed, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("client: the private key is not the base64 of a %d-byte Ed25519 seed", ed25519.SeedSize)
	}
	return ed25519.NewKeyFromSeed(seed), nil
}
