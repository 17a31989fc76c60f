// Package identity is the identity service (CONTRACT §2–3): citizens,
// profiles, the directory, presence, and the development identity provider.
package identity

import (
	"context"
	"fmt"
	"time"

	"github.com/gofiber/fiber/v2"
	"go.mongodb.org/mongo-driver/mongo"

	"sharedworld.dev/pkg/citizens"
	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/services/identity/internal/app"
	"sharedworld.dev/services/identity/internal/devidp"
	"sharedworld.dev/services/identity/internal/domain"
	identityhttp "sharedworld.dev/services/identity/internal/http"
	"sharedworld.dev/services/identity/internal/store"
)

// Options are identity's own settings.
type Options struct {
	// DevProvider, when set, serves the development identity provider's routes.
	DevProvider *devidp.Provider
}

// PresenceWriteEvery is how often one agent's presence (last_seen_at, the
// last signed request) is written at most on an exclusive database: what a
// crash may forget of it, well inside online's 15 minutes.
const PresenceWriteEvery = time.Minute

// Service is the identity service.
type Service struct {
	app      *app.App
	handlers *identityhttp.Handlers
	dev      *identityhttp.DevIDP
	relay    *events.Relay
}

// OpenDevProvider opens the development identity provider stored in db.
// The host opens it before building verifiers, which must trust its key.
func OpenDevProvider(ctx context.Context, db *mongox.DB, prefix string) (*devidp.Provider, error) {
	return devidp.Open(ctx, db, prefix)
}

// New builds the identity service and prepares its storage.
func New(ctx context.Context, deps platform.Deps, opts Options) (*Service, error) {
	s := &Service{}
	s.relay = events.NewRelay("identity", deps.DB, deps.Publisher, deps.Logger)
	citizenStore := newRepository(deps, s.relay)
	s.relay.Add(citizenStore.Collection())
	if err := citizenStore.EnsureIndexes(ctx); err != nil {
		return nil, fmt.Errorf("identity storage: %w", err)
	}
	s.app = app.New(citizenStore, deps.Clock, deps.Logger)
	if deps.DB.Exclusive() {
		// Every read of presence is answered here, from memory merged with
		// the store; replicas on a shared database read each other's
		// sightings from it, so they keep writing them every second.
		s.app.Presence.WriteEvery = PresenceWriteEvery
	}
	if err := s.app.RepairPending(ctx); err != nil {
		return nil, err
	}
	s.handlers = &identityhttp.Handlers{App: s.app, Citizens: citizenSource{s.app}, Auth: deps.Auth, AmbassadorToken: deps.AmbassadorToken, Limits: deps.Limits}
	if opts.DevProvider != nil {
		s.dev = &identityhttp.DevIDP{Provider: opts.DevProvider, Verifier: deps.Auth.Verifier, Auth: deps.Auth, Clock: deps.Clock, AmbassadorToken: deps.AmbassadorToken}
	}
	return s, nil
}

// repository is identity's adapter for the backend: the mirrored one where
// this process is the database's only writer, the MongoDB one otherwise.
type repository interface {
	domain.Repository
	Collection() *mongo.Collection
	EnsureIndexes(context.Context) error
}

func newRepository(deps platform.Deps, relay *events.Relay) repository {
	if deps.DB.Exclusive() {
		return store.NewMirroredCitizens(deps.DB, relay)
	}
	return store.NewCitizens(deps.DB, relay)
}

// Name is "identity".
func (s *Service) Name() string { return "identity" }

// Routes registers identity's public routes (and the development provider's when on).
func (s *Service) Routes(r fiber.Router) {
	s.handlers.Routes(r)
	if s.dev != nil {
		s.dev.Routes(r)
	}
}

// InternalRoutes registers the lookup and presence routes other services call.
func (s *Service) InternalRoutes(r fiber.Router) { s.handlers.InternalRoutes(r) }

// BodyLimits: identity uses the default limit everywhere.
func (s *Service) BodyLimits() map[string]int { return nil }

// Run publishes the outbox and flushes presence until ctx ends.
func (s *Service) Run(ctx context.Context) error {
	done := make(chan struct{})
	go func() { s.app.Presence.Run(ctx); close(done) }()
	s.relay.Run(ctx)
	<-done
	return nil
}

// Citizens is the lookup other services in the same process use (read-your-writes).
func (s *Service) Citizens() citizens.Source { return citizenSource{s.app} }

// Seen is the presence hook for the auth middleware.
func (s *Service) Seen(ctx context.Context, agentID string, signed bool) {
	s.app.Presence.Seen(ctx, agentID, signed)
}

// citizenSource answers lookups from the app in the shape other services
// keep (pkg/citizens), so the app stays free of their storage types.
type citizenSource struct{ app *app.App }

func (s citizenSource) Lookup(ctx context.Context, agentID string) (citizens.Citizen, bool, error) {
	c, found, err := s.app.Lookup(ctx, agentID)
	if err != nil || !found {
		return citizens.Citizen{}, found, err
	}
	return citizens.Citizen{AgentID: c.AgentID, Name: c.Name, Number: c.Number, RegisteredAt: c.RegisteredAt,
		Tombstoned: c.Status == domain.StatusTombstoned, Version: c.Version}, true, nil
}
