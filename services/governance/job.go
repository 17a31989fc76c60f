package governance

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/services/governance/internal/domain"
)

// CheckJob is `governance governance-check`, what the CronJob `19 * * * *`
// runs: one check, then the outbox published, exit 0; a failure is a
// non-zero exit with a log line saying why. Finding another check holding
// the lease is not a failure: that check does the work.
var CheckJob = platform.Job{
	Name:    "governance-check",
	Summary: "apply every governance transition that is due (proposals, elections, terms), publish their events, then exit",
	Run: func(ctx context.Context, env platform.Env) error {
		opts, err := options(env)
		if err != nil {
			return err
		}
		opts.Hourly = false
		s, err := New(ctx, env.Deps, opts)
		if err != nil {
			return err
		}
		ts, err := s.app.Check(ctx)
		if errors.Is(err, domain.ErrLeaseHeld) {
			env.Deps.Logger.Info("governance check: another check holds the lease; nothing done")
			return nil
		}
		if err != nil {
			return err
		}
		dctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		if _, err := s.relay.Drain(dctx); err != nil {
			return fmt.Errorf("publish governance events (they stay in the outbox for the service to publish): %w", err)
		}
		env.Deps.Logger.Info("governance check done", slog.Int("transitions", len(ts)))
		return nil
	},
}
