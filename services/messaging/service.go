// Package messaging is the messaging service (CONTRACT §8): direct messages
// sealed with a key the world never keeps, notifications whose fan-out
// costs one write per broadcast whatever the population, the ambassador's
// inbox and the commons channels. It publishes message.sent,
// commons.posted, inbox.received and inbox.replied.
package messaging

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gofiber/fiber/v2"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"

	"sharedworld.dev/pkg/citizens/directory"
	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/pkg/seal"
	"sharedworld.dev/proto/catalog"
	"sharedworld.dev/services/messaging/internal/app"
	"sharedworld.dev/services/messaging/internal/domain"
	messaginghttp "sharedworld.dev/services/messaging/internal/http"
	"sharedworld.dev/services/messaging/internal/messages"
	"sharedworld.dev/services/messaging/internal/store"
	"sharedworld.dev/services/messaging/internal/telemetry"
)

// Options are the messaging service's own settings.
type Options struct {
	// SealParams are the Argon2id costs of new messages; zero fields take
	// the kit's defaults (tests lower them).
	SealParams seal.Params
}

// Service is the messaging service.
type Service struct {
	handlers  *messaginghttp.Handlers
	app       *app.App
	store     repository
	dir       *directory.Directory
	residents residents
	relay     *events.Relay
	consumer  *events.Consumer
}

// New builds the messaging service and prepares its storage.
func New(ctx context.Context, deps platform.Deps, opts Options) (*Service, error) {
	relay := events.NewRelay("messaging", deps.DB, deps.Publisher, deps.Logger)
	st := newRepository(deps, relay)
	relay.Add(st.OutboxCollections()...)
	if err := st.EnsureIndexes(ctx); err != nil {
		return nil, fmt.Errorf("messaging storage: %w", err)
	}
	dir := directory.New(deps.DB, deps.Citizens)
	repos := app.Repos{Messages: st.Messages(), Notifications: st.Notifications(), Inbox: st.Inbox(), Commons: st.Commons(), Stewards: st.Stewards()}
	living, err := deps.DB.Collection("citizens").CountDocuments(ctx, bson.M{"tombstoned": false})
	if err != nil {
		return nil, fmt.Errorf("messaging citizens: %w", err)
	}
	res := residents{dir: dir, population: new(atomic.Int64)}
	res.population.Store(living)
	a := app.New(repos, res, deps.Clock, opts.SealParams, deps.Logger, telemetry.Observer{})
	if err := a.SyncBacklog(ctx); err != nil {
		return nil, fmt.Errorf("messaging inbox backlog: %w", err)
	}
	s := &Service{
		handlers: &messaginghttp.Handlers{App: a, Auth: deps.Auth, Citizens: dir, AmbassadorToken: deps.AmbassadorToken},
		app:      a, store: st, dir: dir, residents: res, relay: relay,
	}
	s.consumer = events.NewConsumer(events.ConsumerOptions{
		Service: "messaging", Group: "messaging",
		Topics:  []string{catalog.TopicIdentity, catalog.TopicBulletin, catalog.TopicGovernance, catalog.TopicMessaging},
		Brokers: deps.Brokers, Ledger: events.NewLedger(deps.DB), Handler: s.apply, Logger: deps.Logger,
	})
	return s, nil
}

// repository is the messaging adapter for the backend: the mirrored one
// where this process is the database's only writer, the MongoDB one
// otherwise.
type repository interface {
	Messages() domain.Messages
	Notifications() domain.Notifications
	Inbox() domain.Inbox
	Commons() domain.Commons
	Stewards() store.Stewards
	OutboxCollections() []*mongo.Collection
	EnsureIndexes(context.Context) error
}

func newRepository(deps platform.Deps, relay *events.Relay) repository {
	if deps.DB.Exclusive() {
		return store.NewMirrored(deps.DB, messages.Encode, relay)
	}
	return store.New(deps.DB, messages.Encode, relay)
}

// apply is the consumer handler: citizens to the directory, everything
// else through messages.Translate. Each effect is idempotent on its own
// (broadcasts and notifications are unique by their source), so a
// redelivery the ledger misses changes nothing.
func (s *Service) apply(ctx context.Context, e events.Event) error {
	if topic, _ := catalog.TopicOf(e.Type); topic == catalog.TopicIdentity {
		if err := s.dir.Apply(ctx, e); err != nil {
			return err
		}
		s.residents.follow(e)
		return nil
	}
	msg, err := e.Decode()
	if err != nil {
		return fmt.Errorf("%w: %w", events.ErrPermanent, err)
	}
	eff := messages.Translate(msg)
	switch {
	case eff.Broadcast != nil:
		return s.app.Broadcast(ctx, *eff.Broadcast)
	case eff.Personal != nil:
		return s.app.Notify(ctx, *eff.Personal)
	case eff.Steward != nil && eff.Steward.Ended:
		return s.store.Stewards().TermEnded(ctx, eff.Steward.Role, eff.Steward.AgentID)
	case eff.Steward != nil:
		return s.store.Stewards().Elected(ctx, eff.Steward.Role, eff.Steward.AgentID, eff.Steward.ElectionID, eff.Steward.TermEnd)
	}
	return nil
}

// Name is "messaging".
func (s *Service) Name() string { return "messaging" }

// Routes registers the messaging routes.
func (s *Service) Routes(r fiber.Router) { s.handlers.Routes(r) }

// BodyLimits: messaging uses the default 1 MiB everywhere.
func (s *Service) BodyLimits() map[string]int { return nil }

// Run publishes the outbox and follows the world's events until ctx ends.
func (s *Service) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _ = s.consumer.Run(ctx) }()
	s.relay.Run(ctx)
	wg.Wait()
	return nil
}

// residents adapts the citizens directory to the app.
type residents struct {
	dir *directory.Directory
	// population follows the identity events this service applies, from a
	// count taken at start: the fan-out metric reads it, so a broadcast
	// never costs a scan of the citizens (FerretDB scans for any count).
	population *atomic.Int64
}

func (r residents) IsLiving(ctx context.Context, agentID string) (bool, error) {
	c, found, err := r.dir.Lookup(ctx, agentID)
	if err != nil {
		return false, err
	}
	return found && !c.Tombstoned, nil
}

// Population is the number of living citizens as this service last heard.
func (r residents) Population(context.Context) (int64, error) { return r.population.Load(), nil }

// follow keeps the population count in step with an applied identity event.
func (r residents) follow(e events.Event) {
	switch e.Type {
	case catalog.TypeCitizenRegistered:
		r.population.Add(1)
	case catalog.TypeCitizenTombstoned:
		r.population.Add(-1)
	}
}
