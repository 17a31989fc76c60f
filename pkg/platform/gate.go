package platform

import (
	"context"
	"log/slog"

	"sharedworld.dev/pkg/admit"
	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/auth/mongoledger"
	"sharedworld.dev/pkg/config"
	"sharedworld.dev/pkg/mongox"
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
	ledger auth.SignatureLedger
	limits *admit.Limits
}

// newGate builds the gate on the backend: the signature ledger in the
// database (restarts and replicas see it), and the rate limiter counting
// in memory when this process is the only one (exclusive) and in database
// slots when replicas share the budget.
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
	var counter ratelimit.Counter = ratelimit.NewMemory()
	if db.Mode() == mongox.Shared {
		if counter, err = slots.New(ctx, db, log); err != nil {
			return nil, err
		}
	}
	return &gate{ledger: ledger, limits: &admit.Limits{
		Limiter: ratelimit.New(rules, counter, nil), SourceHeader: cfg.ClientIPHeader,
	}}, nil
}
