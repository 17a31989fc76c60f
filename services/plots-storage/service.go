// Package plotsstorage is the plots-storage service (CONTRACT §4): the grid
// of plots, plot files with their permissions and quota, the commons
// garden, and encrypted continuity backups.
package plotsstorage

import (
	"context"
	"fmt"

	"github.com/gofiber/fiber/v2"
	"go.mongodb.org/mongo-driver/mongo"

	"sharedworld.dev/pkg/citizens/directory"
	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/pkg/seal"
	"sharedworld.dev/services/plots-storage/internal/app"
	plotshttp "sharedworld.dev/services/plots-storage/internal/http"
	"sharedworld.dev/services/plots-storage/internal/messages"
	"sharedworld.dev/services/plots-storage/internal/store"
)

// Name is the service's name.
const Name = "plots-storage"

// Body limits above the 1 MiB default (CONTRACT §11): a 1 MiB file in
// base64 with its JSON, and a 5 MiB backup likewise.
const (
	WriteBodyLimit  = 2 << 20
	BackupBodyLimit = 8 << 20
)

// Options are plots-storage's own settings.
type Options struct {
	// Seal sets the key-derivation costs of new backups; zero fields take
	// seal.DefaultParams. Tests lower them; production keeps the defaults.
	Seal seal.Params
}

// Service is the plots-storage service.
type Service struct {
	app      *app.App
	handlers *plotshttp.Handlers
	relay    *events.Relay
	consumer *events.Consumer
}

// New builds the service, prepares its storage and creates the commons: the
// one place where the stores are wired into the use cases.
func New(ctx context.Context, deps platform.Deps, opts Options) (*Service, error) {
	s := &Service{}
	s.relay = events.NewRelay(Name, deps.DB, deps.Publisher, deps.Logger)
	r := newRepositories(deps.DB, s.relay)
	s.relay.Add(r.plots.OutboxCollection(), r.files.OutboxCollection())
	for _, ensure := range []func(context.Context) error{r.plots.EnsureIndexes, r.files.EnsureIndexes, r.backups.EnsureIndexes} {
		if err := ensure(ctx); err != nil {
			return nil, fmt.Errorf("plots-storage storage: %w", err)
		}
	}
	s.app = &app.App{Plots: r.plots, Permissions: store.NewPermissions(deps.DB), Usage: r.usage, Files: r.files, Backups: r.backups,
		Sealer: seal.New(opts.Seal), Clock: deps.Clock, Log: deps.Logger}
	if err := s.app.EnsureCommons(ctx); err != nil {
		return nil, err
	}
	if err := s.app.Repair(ctx); err != nil {
		return nil, err
	}
	dir := directory.New(deps.DB, deps.Citizens)
	s.consumer = events.NewConsumer(events.ConsumerOptions{
		Service: Name, Group: Name, Topics: messages.Consumed, Brokers: deps.Brokers,
		Ledger: events.NewLedger(deps.DB), Handler: s.onCitizen(dir), Logger: deps.Logger,
	})
	s.handlers = &plotshttp.Handlers{App: s.app, Auth: deps.Auth, Citizens: dir, AmbassadorToken: deps.AmbassadorToken, Limits: deps.Limits}
	return s, nil
}

// repositories are the stores of the backend, chosen once here: the
// mirrored adapters where this process is the database's only writer (the
// embedded default), the MongoDB ones otherwise. Permissions are read by
// _id alone and have one adapter.
type repositories struct {
	plots interface {
		app.Plots
		OutboxCollection() *mongo.Collection
		EnsureIndexes(context.Context) error
	}
	usage app.Usage
	files interface {
		app.Files
		OutboxCollection() *mongo.Collection
		EnsureIndexes(context.Context) error
	}
	backups interface {
		app.Backups
		EnsureIndexes(context.Context) error
	}
}

func newRepositories(db *mongox.DB, notify mongox.Notifier) repositories {
	if db.Exclusive() {
		return repositories{plots: store.NewMirroredPlots(db, notify), usage: store.NewMirroredUsage(db),
			files: store.NewMirroredFiles(db, notify), backups: store.NewMirroredBackups(db)}
	}
	return repositories{plots: store.NewPlots(db, notify), usage: store.NewUsage(db),
		files: store.NewFiles(db, notify), backups: store.NewBackups(db)}
}

// onCitizen keeps the citizens projection and releases the plot of a
// citizen who was tombstoned. The release runs on every delivery, whatever
// the projection already knew (a lookup may have learnt of the tombstone
// first), and finds nothing to do on a redelivery.
func (s *Service) onCitizen(dir *directory.Directory) events.Handler {
	return func(ctx context.Context, e events.Event) error {
		if err := dir.Apply(ctx, e); err != nil {
			return err
		}
		if agentID, ok := messages.Tombstoned(e); ok {
			return s.app.ReleaseTombstoned(ctx, agentID)
		}
		return nil
	}
}

// Name is "plots-storage".
func (s *Service) Name() string { return Name }

// Routes registers the public routes.
func (s *Service) Routes(r fiber.Router) { s.handlers.Routes(r) }

// BodyLimits raises the limit for file writes and backups.
func (s *Service) BodyLimits() map[string]int {
	return map[string]int{
		"POST /api/world/storage/write":     WriteBodyLimit,
		"POST /api/world/continuity/backup": BackupBodyLimit,
	}
}

// Run publishes the outbox and keeps the citizens projection until ctx ends.
func (s *Service) Run(ctx context.Context) error {
	done := make(chan error, 1)
	go func() { done <- s.consumer.Run(ctx) }()
	s.relay.Run(ctx)
	err := <-done
	s.app.WriteDeferredConfirms(ctx)
	s.app.FlushDeletes(ctx)
	return err
}
