package platform

import (
	"context"
	"log/slog"

	"sharedworld.dev/pkg/admit"
	"sharedworld.dev/pkg/auth/mongoledger"
	"sharedworld.dev/pkg/config"
	"sharedworld.dev/pkg/ratelimit"
	"sharedworld.dev/pkg/ratelimit/slots"
)

// GateService names the database of the host's request gate: the used
// request signatures and the rate limit slots. Every service and replica
// shares it, so a signature is accepted once wherever it is sent (it is
// bound to its path anyway) and an agent's budget is one across services.
const GateService = "gate"

// gate is what the host's request gate keeps across requests.
type gate struct {
	ledger *mongoledger.Ledger
	slots  *slots.Counter
	limits *admit.Limits
}

// newGate builds the gate on the backend: the signature ledger and the
// rate limiter's slots in the database, so that replicas share one budget
// and a restart starts no count over, on every backend (a kill forgets at
// most the slots queued in its last moments on the embedded default).
func newGate(ctx context.Context, b *Backend, cfg config.Common, log *slog.Logger) (*gate, error) {
	db := b.DB(GateService)
	ledger, err := mongoledger.New(ctx, db, log)
	if err != nil {
		return nil, err
	}
	rules, err := ratelimit.Parse(cfg.RateLimits)
	if err != nil {
		return nil, err
	}
	counter, err := slots.New(ctx, db, log)
	if err != nil {
		return nil, err
	}
	return &gate{ledger: ledger, slots: counter, limits: &admit.Limits{
		Limiter: ratelimit.New(rules, counter, nil), SourceHeader: cfg.ClientIPHeader,
		LoopbackUnlimited: cfg.LoopbackSourcesUnlimited,
	}}, nil
}
