// Package tickets is the tickets service (CONTRACT §5): citizens file
// feedback tickets and upvote others' tickets; the ambassador triages them.
// It publishes ticket.filed, ticket.status_changed and ticket.upvoted, from
// which the bulletin builds its feed and open-ticket list.
package tickets

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/citizens"
	eventkit "sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/services/tickets/internal/app"
	"sharedworld.dev/services/tickets/internal/domain"
	ticketevents "sharedworld.dev/services/tickets/internal/events"
	tickethttp "sharedworld.dev/services/tickets/internal/http"
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
	store    *store.Store
	handlers *tickethttp.Handlers
	relay    *eventkit.Relay
	consumer *eventkit.Consumer
}

// repairWindow is how far back New looks for projections a crash left
// behind: a crash is followed by a restart within minutes, not days.
const repairWindow = 24 * time.Hour

// New builds the tickets service and prepares its storage.
func New(ctx context.Context, deps platform.Deps, opts Options) (*Service, error) {
	relay := eventkit.NewRelay("tickets", deps.DB, deps.Publisher, deps.Logger)
	st := store.New(deps.DB, ticketevents.Encode, relay, deps.Logger)
	relay.Add(st.OutboxCollections()...) // filings before changes: a ticket's first event first
	if err := st.EnsureIndexes(ctx); err != nil {
		return nil, fmt.Errorf("tickets storage: %w", err)
	}
	if err := st.Repair(ctx, deps.Clock.Now().Add(-repairWindow)); err != nil {
		return nil, fmt.Errorf("tickets storage: %w", err)
	}
	dir := citizens.NewDirectory(deps.DB, deps.Citizens)
	consumer := eventkit.NewConsumer(eventkit.ConsumerOptions{
		Service: "tickets", Group: "tickets", Topics: citizens.Topics, Brokers: deps.Brokers,
		Ledger: eventkit.NewLedger(deps.DB), Handler: dir.Apply, Logger: deps.Logger,
	})
	a := app.New(st, deps.Clock, domain.NewDailyLimit(opts.DailyLimit), deps.Logger)
	return &Service{
		store:    st,
		handlers: &tickethttp.Handlers{App: a, Auth: deps.Auth, Citizens: dir, AmbassadorToken: deps.AmbassadorToken},
		relay:    relay,
		consumer: consumer,
	}, nil
}

// Name is "tickets".
func (s *Service) Name() string { return "tickets" }

// Routes registers the tickets routes.
func (s *Service) Routes(r fiber.Router) { s.handlers.Routes(r) }

// BodyLimits: tickets uses the default 1 MiB everywhere.
func (s *Service) BodyLimits() map[string]int { return nil }

// Run publishes the outbox, follows citizen events and keeps projections
// current until ctx ends.
func (s *Service) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); s.store.Run(ctx) }()
	go func() { defer wg.Done(); _ = s.consumer.Run(ctx) }()
	s.relay.Run(ctx)
	wg.Wait()
	return nil
}
