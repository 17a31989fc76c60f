package platform

import (
	"context"
	"log/slog"
	"time"

	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/citizens"
	"sharedworld.dev/pkg/config"
)

// newAuth builds the host's one auth middleware: a verifier trusting the
// configured providers plus those the host's own services serve, the
// signature replay cache over the gate's ledger, the signature requirement
// and the per-agent write budget. Its key and
// revocation refresh runs until life ends. Presence is wired once the
// services are built (see Host.wire).
func newAuth(life context.Context, cfg config.Common, own []auth.Provider, g *gate, log *slog.Logger) *auth.Middleware {
	providers := auth.Providers(own)
	if len(cfg.ProviderKeys) > 0 {
		var keys []auth.Key
		for kid, pub := range cfg.ProviderKeys {
			keys = append(keys, auth.Key{Kid: kid, PublicKey: pub})
		}
		providers = append(providers, auth.StaticProvider{KeyList: keys})
	}
	if cfg.ProviderKeysURL != "" || cfg.ProviderRevocationsURL != "" {
		providers = append(providers, auth.HTTPProvider{KeysURL: cfg.ProviderKeysURL, RevocationsURL: cfg.ProviderRevocationsURL})
	}
	opts := auth.VerifierOptions{Provider: providers, Prefix: cfg.AgentIDPrefix, Logger: log,
		RevocationRefresh: time.Duration(cfg.RevocationRefreshSec) * time.Second}
	if cfg.RemoteVerify {
		opts.Remote = &auth.RemoteVerifier{URL: cfg.ProviderVerifyURL}
	}
	v := auth.NewVerifier(opts)
	v.Start(life)
	requireSig := cfg.RequireSignatures
	return &auth.Middleware{Verifier: v, Replay: auth.NewDurableReplayCache(g.ledger),
		RequireSignatures: func() bool { return requireSig }, Limits: g.limits.Limiter}
}

// lookup is every service's Deps.Citizens. It is pointed at its source
// once all services are built, because the service that keeps the
// citizens may be built after those that ask.
type lookup struct{ src citizens.Source }

func (l *lookup) Lookup(ctx context.Context, agentID string) (citizens.Citizen, bool, error) {
	if l.src == nil {
		return citizens.Citizen{}, false, errLookupTooEarly
	}
	return l.src.Lookup(ctx, agentID)
}
