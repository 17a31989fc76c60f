package auth_test

import (
	"context"
	"crypto/ed25519"
	"testing"
	"time"

	"sharedworld.dev/pkg/auth"
)

func benchVerifier(b *testing.B) (*auth.Verifier, auth.Issuer) {
	_, priv, _ := ed25519.GenerateKey(nil)
	iss := auth.Issuer{Name: "idp", Kid: "k1", Key: priv, Prefix: "emb"}
	v := auth.NewVerifier(auth.VerifierOptions{Provider: &memProvider{keys: []auth.Key{{Kid: "k1", PublicKey: iss.PublicKey()}}}})
	v.Start(context.Background())
	return v, iss
}

// BenchmarkVerifyCached is the per-request cost once a certificate was seen.
func BenchmarkVerifyCached(b *testing.B) {
	v, iss := benchVerifier(b)
	pub, _, _ := ed25519.GenerateKey(nil)
	_, cert, _ := iss.Issue("Ada", pub, time.Now(), nil)
	ctx := context.Background()
	if _, err := v.Verify(ctx, cert); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := v.Verify(ctx, cert); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyFull is a first sight: parse, canonicalise, Ed25519 verify (keys cached).
func BenchmarkVerifyFull(b *testing.B) {
	v, iss := benchVerifier(b)
	pub, _, _ := ed25519.GenerateKey(nil)
	certs := make([][]byte, 0, 4096)
	for range 4096 {
		_, cert, _ := iss.Issue("Ada", pub, time.Now(), nil)
		certs = append(certs, cert)
	}
	ctx := context.Background()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		// a fresh certificate each time so the verified-certificate cache never answers
		cert := certs[i%len(certs)]
		i++
		if i%len(certs) == 0 {
			b.StopTimer()
			for j := range certs {
				_, certs[j], _ = iss.Issue("Ada", pub, time.Now(), nil)
			}
			b.StartTimer()
		}
		if _, err := v.Verify(ctx, cert); err != nil {
			b.Fatal(err)
		}
	}
}
