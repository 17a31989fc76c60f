// Package tickets is the tickets service (CONTRACT §5): citizens file
// feedback tickets and upvote others' tickets; the ambassador triages them.
// It publishes ticket.filed, ticket.status_changed and ticket.upvoted, from
// which the bulletin builds its feed and open-ticket list.
package tickets

import (
	"context"
	"fmt"
	"sync"

	"github.com/gofiber/fiber/v2"
	"go.mongodb.org/mongo-driver/mongo"

	"sharedworld.dev/pkg/citizens"
	"sharedworld.dev/pkg/citizens/directory"
	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/services/tickets/internal/app"
	"sharedworld.dev/services/tickets/internal/domain"
	tickethttp "sharedworld.dev/services/tickets/internal/http"
	"sharedworld.dev/services/tickets/internal/messages"
	"sharedworld.dev/services/tickets/internal/store"
)

// Options are the tickets service's own settings.
type Options struct {
	// DailyLimit is how many tickets a citizen may file per UTC day; 0 means
	// the contract's 5.
	DailyLimit int
}

// Service is the tickets service.
type Service struct {
	handlers *tickethttp.Handlers
	relay    *events.Relay
	consumer *events.Consumer
}

// New builds the tickets service and prepares its storage.
func New(ctx context.Context, deps platform.Deps, opts Options) (*Service, error) {
	relay := events.NewRelay("tickets", deps.DB, deps.Publisher, deps.Logger)
	st := newRepository(deps, relay)
	relay.Add(st.Collection())
	if err := st.EnsureIndexes(ctx); err != nil {
		return nil, fmt.Errorf("tickets storage: %w", err)
	}
	dir := directory.New(deps.DB, deps.Citizens)
	consumer := events.NewConsumer(events.ConsumerOptions{
		Service: "tickets", Group: "tickets", Topics: citizens.Topics, Brokers: deps.Brokers,
		Ledger: events.NewLedger(deps.DB), Handler: dir.Apply, Logger: deps.Logger,
	})
	a := app.New(st, deps.Clock, domain.NewDailyLimit(opts.DailyLimit), deps.Logger)
	return &Service{
		handlers: &tickethttp.Handlers{App: a, Auth: deps.Auth, Citizens: dir, AmbassadorToken: deps.AmbassadorToken},
		relay:    relay,
		consumer: consumer,
	}, nil
}

// repository is the tickets adapter for the backend: the mirrored one where
// this process is the database's only writer, the MongoDB one otherwise.
type repository interface {
	domain.Repository
	Collection() *mongo.Collection
	EnsureIndexes(context.Context) error
}

func newRepository(deps platform.Deps, relay *events.Relay) repository {
	if deps.DB.Exclusive() {
		return store.NewMirrored(deps.DB, messages.Encode, relay)
	}
	return store.New(deps.DB, messages.Encode, relay)
}

// Name is "tickets".
func (s *Service) Name() string { return "tickets" }

// Routes registers the tickets routes.
func (s *Service) Routes(r fiber.Router) { s.handlers.Routes(r) }

// BodyLimits: tickets uses the default 1 MiB everywhere.
func (s *Service) BodyLimits() map[string]int { return nil }

// Run publishes the outbox and follows citizen events until ctx ends.
func (s *Service) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _ = s.consumer.Run(ctx) }()
	s.relay.Run(ctx)
	wg.Wait()
	return nil
}
