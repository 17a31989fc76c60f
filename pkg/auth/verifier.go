package auth

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"sync"
	"time"

	"sharedworld.dev/pkg/metrics"
	"sharedworld.dev/pkg/problem"
)

// VerifierOptions configures certificate verification.
type VerifierOptions struct {
	Provider Provider
	// Remote, when set, makes the provider verify every new certificate.
	Remote *RemoteVerifier
	// Prefix is the provider's agent_id prefix ("emb").
	Prefix string
	// RevocationRefresh is how often the revocation list is refetched (≤ 60 s).
	RevocationRefresh time.Duration
	// KeyRefetch bounds how often an unknown kid causes a key refetch.
	KeyRefetch time.Duration
	Logger     *slog.Logger
}

// Verifier checks certificates. Verified certificates are cached by the hash
// of their bytes, so a request costs a hash and a map lookup once its
// certificate has been seen; expiry and revocation are still checked every time.
type Verifier struct {
	opts        VerifierOptions
	keys        *keyCache
	revocations *revocationList
	idPattern   *regexp.Regexp

	mu       sync.RWMutex
	verified map[[32]byte]*Certificate
}

const verifiedCacheSize = 50_000

// NewVerifier builds a verifier; call Start to load keys and revocations.
func NewVerifier(o VerifierOptions) *Verifier {
	if o.Prefix == "" {
		o.Prefix = "emb"
	}
	if o.RevocationRefresh <= 0 || o.RevocationRefresh > time.Minute {
		o.RevocationRefresh = 30 * time.Second
	}
	if o.KeyRefetch <= 0 {
		o.KeyRefetch = 10 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	v := &Verifier{
		opts:        o,
		revocations: &revocationList{provider: o.Provider},
		idPattern:   regexp.MustCompile(`^` + regexp.QuoteMeta(o.Prefix) + `_[0-9a-f]{24}$`),
		verified:    make(map[[32]byte]*Certificate),
	}
	v.keys = &keyCache{provider: o.Provider, minRefetch: o.KeyRefetch, fetched: v.keysFetched}
	return v
}

// Start loads keys and the revocation list, then refreshes the list in the
// background until ctx ends. A provider that is down at start is retried:
// its keys after a second at first, then less often (up to KeyRefetch),
// until some are held.
func (v *Verifier) Start(ctx context.Context) {
	_ = v.keys.refresh(ctx) // logged by keysFetched
	if held, _ := v.keys.state(); held == 0 {
		go v.retryKeys(ctx)
	}
	if err := v.RefreshRevocations(ctx); err != nil {
		v.opts.Logger.Warn("revocation list not loaded yet", slog.String("error", err.Error()))
	}
	go func() {
		t := time.NewTicker(v.opts.RevocationRefresh)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := v.RefreshRevocations(ctx); err != nil && ctx.Err() == nil {
					v.opts.Logger.Warn("revocation list refresh failed; keeping the previous list", slog.String("error", err.Error()))
				}
			}
		}
	}()
}

// RefreshRevocations refetches the revocation list now.
func (v *Verifier) RefreshRevocations(ctx context.Context) error {
	err := v.revocations.refresh(ctx)
	if err != nil {
		metrics.ProviderRefreshFailures.WithLabelValues("revocations").Inc()
	}
	return err
}

// retryKeys fetches the keys again until some are held or ctx ends: no
// request asks for them while every certificate is refused with "unknown
// provider key" only once per KeyRefetch, and the host stays not ready
// meanwhile, so the retry cannot wait for traffic.
func (v *Verifier) retryKeys(ctx context.Context) {
	wait := min(time.Second, v.opts.KeyRefetch)
	for {
		if held, _ := v.keys.state(); held > 0 {
			return
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		_ = v.keys.refresh(ctx)
		wait = min(2*wait, v.opts.KeyRefetch)
	}
}

// keysFetched logs a fetch of the provider's keys that failed, once per
// different error rather than at every retry, and the recovery; and keeps
// the metrics.
func (v *Verifier) keysFetched(held int, err, prev error) {
	metrics.ProviderKeys.Set(float64(held))
	switch {
	case err != nil:
		metrics.ProviderRefreshFailures.WithLabelValues("keys").Inc()
		if prev == nil || prev.Error() != err.Error() {
			v.opts.Logger.Error("identity provider keys could not be loaded", slog.String("error", err.Error()), slog.Int("keys_held", held))
		}
	case prev != nil:
		v.opts.Logger.Info("identity provider keys loaded", slog.Int("keys_held", held))
	}
}

// ErrNoProviderKey is Ready's answer while the verifier holds no key of
// its provider: every certificate would be refused.
var ErrNoProviderKey = errors.New("no identity provider key loaded")

// Ready is a readiness probe: nil once the verifier holds a key of its
// provider (or the provider verifies every certificate itself), else why
// not, with the last fetch's error. A replica that would refuse every
// certificate with 401 must not receive traffic.
func (v *Verifier) Ready(context.Context) error {
	if v.opts.Remote != nil {
		return nil
	}
	held, err := v.keys.state()
	switch {
	case held > 0:
		return nil
	case err != nil:
		return fmt.Errorf("%w: %w", ErrNoProviderKey, err)
	default:
		return fmt.Errorf("%w: the provider lists no usable ed25519 key", ErrNoProviderKey)
	}
}

// ValidAgentID reports whether id has the provider's agent_id shape.
func (v *Verifier) ValidAgentID(id string) bool { return v.idPattern.MatchString(id) }

var (
	hintCert    = "Send the certificate your identity provider issued, unmodified, in X-Agent-Certificate (JSON or base64) or the embassy_certificate body field; get one from POST /dev/idp/register when the development provider is on."
	errBadCert  = problem.Unauthenticated("The certificate is malformed.", hintCert)
	errBadSig   = problem.Unauthenticated("The certificate signature is invalid.", hintCert)
	errUnknownK = problem.Unauthenticated("The certificate is signed by an unknown provider key.", hintCert)
)

// Verify checks a certificate's shape, signature, expiry (wall clock) and revocation.
func (v *Verifier) Verify(ctx context.Context, raw []byte) (*Certificate, error) {
	sum := sha256.Sum256(raw)
	v.mu.RLock()
	cert, cached := v.verified[sum]
	v.mu.RUnlock()
	if !cached {
		var err error
		if cert, err = v.verifyNew(ctx, raw); err != nil {
			return nil, err
		}
		v.mu.Lock()
		if len(v.verified) >= verifiedCacheSize {
			clear(v.verified)
		}
		v.verified[sum] = cert
		v.mu.Unlock()
	}
	expired, err := cert.Expired(time.Now())
	if err != nil {
		return nil, problem.Unauthenticated("The certificate's expires_at is not a timestamp.", hintCert)
	}
	if expired {
		return nil, problem.Unauthenticated("The certificate has expired.", "Ask your identity provider for a new certificate.")
	}
	if v.revocations.isRevoked(cert.AgentID) {
		return nil, problem.Revoked("The identity provider revoked this certificate.", "Ask your identity provider for a new identity; a revoked agent_id cannot act in the world.")
	}
	return cert, nil
}

func (v *Verifier) verifyNew(ctx context.Context, raw []byte) (*Certificate, error) {
	cert, err := ParseCertificate(raw)
	if err != nil {
		return nil, problem.Unauthenticated("The certificate is malformed: "+err.Error()+".", hintCert)
	}
	if cert.SigAlg != "ed25519" {
		return nil, problem.Unauthenticated("The certificate's sig_alg must be ed25519.", hintCert)
	}
	if !v.ValidAgentID(cert.AgentID) {
		return nil, problem.Unauthenticated("The certificate's agent_id does not have the provider's shape ("+v.opts.Prefix+"_ and 24 lowercase hex).", hintCert)
	}
	if _, err := cert.Key(); err != nil {
		return nil, errBadCert
	}
	if v.opts.Remote != nil {
		valid, revoked, err := v.opts.Remote.Verify(ctx, cert.JSON())
		if err != nil {
			return nil, problem.Unavailable("The identity provider could not be reached to verify the certificate.", "Retry in a few seconds.")
		}
		if revoked {
			return nil, problem.Revoked("The identity provider revoked this certificate.", "Ask your identity provider for a new identity.")
		}
		if !valid {
			return nil, errBadSig
		}
		return cert, nil
	}
	key, ok := v.keys.lookup(ctx, cert.Kid)
	if !ok {
		return nil, errUnknownK
	}
	sig, err := decodeBase64(cert.Signature)
	if err != nil {
		return nil, errBadSig
	}
	input, err := cert.SigningInput()
	if err != nil {
		return nil, errBadCert
	}
	if !ed25519.Verify(key, input, sig) {
		return nil, errBadSig
	}
	return cert, nil
}
