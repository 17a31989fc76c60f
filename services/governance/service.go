// Package governance is the governance service (CONTRACT §7): citizens
// make proposals and cast encrypted ballots, elect the five stewards and
// recall them; the governance check moves everything through its
// deadlines. It publishes proposal.*, vote.cast, election.* and steward.*
// on world.governance, from which the bulletin builds its governance
// section and its vote feed items.
package governance

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"go.mongodb.org/mongo-driver/mongo"

	"sharedworld.dev/pkg/citizens"
	"sharedworld.dev/pkg/citizens/directory"
	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/services/governance/internal/app"
	"sharedworld.dev/services/governance/internal/ballot"
	"sharedworld.dev/services/governance/internal/domain"
	govhttp "sharedworld.dev/services/governance/internal/http"
	"sharedworld.dev/services/governance/internal/messages"
	"sharedworld.dev/services/governance/internal/store"
	"sharedworld.dev/services/governance/internal/telemetry"
)

// Options are the governance service's own settings.
type Options struct {
	// BallotKey is the AES-256 key ballots are sealed with (32 bytes).
	BallotKey []byte
	// Trigger is the population at which the first elections open; 0
	// means the contract's 10.
	Trigger int64
	// Hourly runs the check at minute 19 of every hour of the world's
	// clock (a deployment's own schedule; the local runner's dev clock
	// leaves it off: on demand only).
	Hourly bool
}

// Service is the governance service.
type Service struct {
	app      *app.App
	handlers *govhttp.Handlers
	relay    *events.Relay
	consumer *events.Consumer
	clock    clock.Clock
	log      *slog.Logger
	hourly   bool
}

// New builds the governance service and prepares its storage.
func New(ctx context.Context, deps platform.Deps, opts Options) (*Service, error) {
	box, err := ballot.NewBox(opts.BallotKey)
	if err != nil {
		return nil, fmt.Errorf("governance: %w", err)
	}
	relay := events.NewRelay("governance", deps.DB, deps.Publisher, deps.Logger)
	st := newRepository(deps, relay)
	relay.Add(st.Collections()...)
	if err := st.EnsureIndexes(ctx); err != nil {
		return nil, fmt.Errorf("governance storage: %w", err)
	}
	dir := directory.New(deps.DB, deps.Citizens)
	consumer := events.NewConsumer(events.ConsumerOptions{
		Service: "governance", Group: "governance", Topics: citizens.Topics, Brokers: deps.Brokers,
		Ledger: events.NewLedger(deps.DB), Handler: dir.Apply, Logger: deps.Logger,
	})
	a := app.New(st, store.NewCitizens(dir), store.NewLease(deps.DB), box, deps.Clock, opts.Trigger, deps.Logger, telemetry.Observer{})
	return &Service{
		app:      a,
		handlers: &govhttp.Handlers{App: a, Auth: deps.Auth, Citizens: dir, AmbassadorToken: deps.AmbassadorToken},
		relay:    relay, consumer: consumer, clock: deps.Clock, log: deps.Logger, hourly: opts.Hourly,
	}, nil
}

// repository is the governance adapter for the backend: the mirrored one
// where this process is the database's only writer, the MongoDB one
// otherwise.
type repository interface {
	domain.Repository
	Collections() []*mongo.Collection
	EnsureIndexes(context.Context) error
}

func newRepository(deps platform.Deps, relay *events.Relay) repository {
	if deps.DB.Exclusive() {
		return store.NewMirrored(deps.DB, messages.Encode, relay)
	}
	return store.New(deps.DB, messages.Encode, relay)
}

// Name is "governance".
func (s *Service) Name() string { return "governance" }

// Routes registers the governance routes.
func (s *Service) Routes(r fiber.Router) { s.handlers.Routes(r) }

// BodyLimits: governance uses the default 1 MiB everywhere.
func (s *Service) BodyLimits() map[string]int { return nil }

// Check runs the governance check once (the job and tests use it).
func (s *Service) Check(ctx context.Context) ([]Transition, error) {
	ts, err := s.app.Check(ctx)
	out := make([]Transition, len(ts))
	for i, t := range ts {
		out[i] = Transition{Kind: t.Kind, ID: t.ID, From: t.From, To: t.To, At: t.At}
	}
	return out, err
}

// Transition is one change a check made.
type Transition struct {
	Kind, ID, From, To string
	At                 time.Time
}

// Run publishes the outbox, follows citizen events and, when hourly, runs
// the check at minute 19 of every hour until ctx ends.
func (s *Service) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _ = s.consumer.Run(ctx) }()
	if s.hourly {
		wg.Add(1)
		go func() { defer wg.Done(); s.everyHour(ctx) }()
	}
	s.relay.Run(ctx)
	wg.Wait()
	return nil
}

// everyHour runs the check at minute 19 of every hour.
func (s *Service) everyHour(ctx context.Context) {
	s.app.Scheduled()
	for {
		wait := NextRun(s.clock.Now()).Sub(s.clock.Now())
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		ts, err := s.app.Check(ctx)
		if err != nil {
			s.log.Warn("governance check", slog.String("error", err.Error()))
			continue
		}
		s.log.Info("governance check", slog.Int("transitions", len(ts)))
	}
}

// NextRun is the next minute 19 of an hour strictly after now.
func NextRun(now time.Time) time.Time {
	next := now.UTC().Truncate(time.Hour).Add(19 * time.Minute)
	if !next.After(now) {
		next = next.Add(time.Hour)
	}
	return next
}
