// Package bulletin is the bulletin service (CONTRACT §6): the aggregator
// that projects every domain's events, the bulletin document served from
// memory, the feed as pages and as a live stream, and the ambassador's
// announcements.
package bulletin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/services/bulletin/internal/app"
	"sharedworld.dev/services/bulletin/internal/domain"
	bulletinhttp "sharedworld.dev/services/bulletin/internal/http"
	"sharedworld.dev/services/bulletin/internal/messages"
	"sharedworld.dev/services/bulletin/internal/store"
	"sharedworld.dev/services/bulletin/internal/telemetry"
)

// ConsumerGroup is the Kafka consumer group of the aggregator; its committed
// offsets are where a restarted bulletin resumes.
const ConsumerGroup = "bulletin"

// Options are the bulletin's own settings.
type Options struct {
	// World is what configuration says about the world; empty fields take
	// their defaults (the founding date defaults to the first start).
	World domain.WorldConfig
	// MaxSubscribers bounds live-stream clients; SubscriberBuffer is each
	// one's backlog before it is dropped.
	MaxSubscribers   int
	SubscriberBuffer int
	// Heartbeat is the live stream's keep-alive interval.
	Heartbeat time.Duration
	// Role is what this process does (default RoleAll).
	Role Role
	// Elector elects the aggregator among RoleAggregator replicas; nil: a
	// lease in the bulletin's database, held under Holder (default: the
	// host name and process id, which tell replicas apart on one machine
	// too).
	Elector app.Elector
	Holder  string
}

// Role is what a bulletin process does.
type Role string

const (
	// RoleAll is the aggregator and the readers' routes in one process,
	// without an election: the local runner, where the process is the
	// database's only writer.
	RoleAll Role = "all"
	// RoleAggregator campaigns for the aggregator's lease and, while it
	// holds it, applies every event and stores the document and the feed
	// for the readers. It serves no public route.
	RoleAggregator Role = "aggregator"
	// RoleReader serves the public routes from what the aggregator
	// stored, told of changes by its head signal; any number may run.
	RoleReader Role = "reader"
)

func (o Options) withDefaults() Options {
	if o.MaxSubscribers <= 0 {
		o.MaxSubscribers = 1000
	}
	if o.SubscriberBuffer <= 0 {
		o.SubscriberBuffer = 256
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = 15 * time.Second
	}
	if o.Role == "" {
		o.Role = RoleAll
	}
	if o.Holder == "" {
		host, _ := os.Hostname()
		o.Holder = fmt.Sprintf("%s/%d/%d", host, os.Getpid(), time.Now().UnixNano())
	}
	return o
}

// Service is the bulletin service.
type Service struct {
	deps     platform.Deps
	opts     Options
	st       stores
	world    domain.WorldConfig
	hub      *app.Hub
	board    *app.Board
	handlers *bulletinhttp.Handlers
	relay    *events.Relay
	// aggregator is the one applying events in this process (nil in a
	// reader, and in an aggregator replica while it stands by).
	aggregator atomic.Pointer[app.Aggregator]
	// handledBefore counts what earlier leaderships of this process applied.
	handledBefore atomic.Int64
	reader        *app.Reader
	// streams ends when Run ends, closing every live stream.
	streams    context.Context
	endStreams context.CancelFunc
}

// New builds the bulletin in its role and prepares its storage. RoleAll
// loads the stored projections and a reader the stored document, so either
// serves correctly before Run starts; an aggregator replica loads them when
// it is elected.
func New(ctx context.Context, deps platform.Deps, opts Options) (*Service, error) {
	opts = opts.withDefaults()
	st, err := openStores(ctx, deps, opts.Role)
	if err != nil {
		return nil, err
	}
	founded, err := st.meta.Founded(ctx, deps.Clock.Now())
	if err != nil {
		return nil, err
	}
	epoch, err := st.meta.Epoch(ctx)
	if err != nil {
		return nil, err
	}
	s := &Service{deps: deps, opts: opts, st: st, world: opts.World.WithDefaults(founded),
		hub: app.NewHub(opts.MaxSubscribers, opts.SubscriberBuffer, telemetry.Observer{}), board: app.NewBoard()}
	s.streams, s.endStreams = context.WithCancel(context.WithoutCancel(ctx))
	switch opts.Role {
	case RoleAll:
		agg := app.NewAggregator(s.world, st.projections, st.feed, s.hub, deps.Logger, telemetry.Observer{})
		if err := agg.Load(ctx); err != nil {
			return nil, err
		}
		s.aggregator.Store(agg)
		s.board = agg.Board()
	case RoleReader:
		s.reader = app.NewReader(st.feed, st.renderings, s.hub, s.board, deps.Logger, telemetry.Observer{})
		if err := s.reader.Load(ctx); err != nil {
			return nil, fmt.Errorf("load the stored bulletin: %w", err)
		}
	case RoleAggregator:
		if s.opts.Elector == nil {
			s.opts.Elector = &app.LeaseElector{Store: store.NewLeases(deps.DB, "aggregator"), Holder: opts.Holder, Log: deps.Logger}
		}
	default:
		return nil, fmt.Errorf("bulletin: unknown role %q", opts.Role)
	}
	s.relay = events.NewRelay("bulletin", deps.DB, deps.Publisher, deps.Logger)
	announcements := store.NewAnnouncements(deps.DB, s.relay)
	s.relay.Add(announcements.Collection())
	s.handlers = &bulletinhttp.Handlers{
		Board:           s.board,
		Feed:            app.NewFeed(st.feed, s.hub, epoch),
		Announcements:   app.NewAnnouncements(announcements, pinLock(deps), deps.Clock),
		AmbassadorToken: deps.AmbassadorToken,
		Heartbeat:       opts.Heartbeat,
		Streams:         s.streams,
	}
	return s, nil
}

// pinLock is the lock of the pin moves: a lease in the database where
// other replicas may move pins too, a mutex where this process is the
// database's only writer.
func pinLock(deps platform.Deps) *app.MoveLock {
	if deps.DB.Exclusive() {
		return &app.MoveLock{}
	}
	return &app.MoveLock{Store: store.NewLeases(deps.DB, "pin-moves")}
}

type stores struct {
	projections projectionRepository
	feed        feedRepository
	meta        *store.Meta
	renderings  *store.Renderings
}

// projectionRepository and feedRepository are the aggregator's adapters
// for the backend: the mirrored ones where this process is the database's
// only writer, the MongoDB ones otherwise.
type projectionRepository interface {
	domain.ProjectionRepository
	Drop(context.Context) error
}

type feedRepository interface {
	domain.FeedRepository
	EnsureIndexes(context.Context) error
	Drop(context.Context) error
}

// newStores picks the adapters: the mirrored ones only for RoleAll on an
// exclusive database (the process is its only writer); a reader reads what
// another process writes, and an aggregator replica follows others'
// leaderships, so both query the database.
func newStores(deps platform.Deps, role Role) stores {
	st := stores{projections: store.NewProjections(deps.DB), feed: store.NewFeed(deps.DB), meta: store.NewMeta(deps.DB), renderings: store.NewRenderings(deps.DB)}
	if deps.DB.Exclusive() && role == RoleAll {
		st.projections, st.feed = store.NewMirroredProjections(deps.DB), store.NewMirroredFeed(deps.DB)
	}
	return st
}

func openStores(ctx context.Context, deps platform.Deps, role Role) (stores, error) {
	st := newStores(deps, role)
	if err := st.feed.EnsureIndexes(ctx); err != nil {
		return st, fmt.Errorf("bulletin storage: %w", err)
	}
	if err := store.NewAnnouncements(deps.DB, nil).EnsureIndexes(ctx); err != nil {
		return st, fmt.Errorf("bulletin storage: %w", err)
	}
	return st, nil
}

// Name is "bulletin".
func (s *Service) Name() string { return "bulletin" }

// Routes registers the bulletin's public routes; an aggregator replica
// serves none (readers do).
func (s *Service) Routes(r fiber.Router) {
	if s.opts.Role != RoleAggregator {
		s.handlers.Routes(r)
	}
}

// BodyLimits: the bulletin uses the default limit everywhere.
func (s *Service) BodyLimits() map[string]int { return nil }

// Run does the role's background work until ctx ends (see run*), with the
// announcements' outbox relay beside it; then it closes the live streams.
func (s *Service) Run(ctx context.Context) error {
	defer s.endStreams()
	defer s.hub.Close()
	relayed := make(chan struct{})
	go func() { s.relay.Run(ctx); close(relayed) }()
	defer func() { <-relayed }()
	switch s.opts.Role {
	case RoleReader:
		return s.runReader(ctx)
	case RoleAggregator:
		return s.opts.Elector.Lead(ctx, s.lead)
	}
	return s.runAggregator(ctx, s.aggregator.Load(), nil)
}

// handle applies one consumed event. The aggregator is idempotent by itself
// (versions per aggregate, feed entries keyed by event id), so the consumer
// runs without a separate ledger: a redelivered event plans no change and
// costs no write.
func (s *Service) handle(agg *app.Aggregator) events.Handler {
	return func(ctx context.Context, e events.Event) error { return apply(ctx, agg, e) }
}

// handleBatch applies a fetched batch of events together (the catch-up
// path: their writes are coalesced). An event that cannot be translated is
// skipped, as handle would make the consumer skip it.
func (s *Service) handleBatch(agg *app.Aggregator) events.BatchHandler {
	return func(ctx context.Context, evs []events.Event) error { return s.applyBatch(ctx, agg, evs) }
}

func (s *Service) applyBatch(ctx context.Context, agg *app.Aggregator, evs []events.Event) error {
	des := make([]domain.Event, 0, len(evs))
	for _, e := range evs {
		de, err := messages.ToDomain(e)
		if err != nil {
			s.deps.Logger.Error("skipping an event that cannot be applied", slog.String("id", e.ID), slog.String("type", e.Type), slog.String("error", err.Error()))
			continue
		}
		des = append(des, de)
	}
	return agg.ApplyBatch(ctx, des)
}

func apply(ctx context.Context, agg *app.Aggregator, e events.Event) error {
	de, err := messages.ToDomain(e)
	if err != nil {
		return fmt.Errorf("%w: %w", events.ErrPermanent, err)
	}
	err = agg.Apply(ctx, de)
	if errors.Is(err, domain.ErrInvalidEvent) {
		return fmt.Errorf("%w: %w", events.ErrPermanent, err)
	}
	return err
}

// Board is the rendered bulletin this process serves (for the local
// runner's web board and tests); an aggregator replica serves none.
func (s *Service) Board() *app.Board { return s.board }

// Leading reports whether this process applies events now (RoleAll
// always, an aggregator replica while it holds the lease).
func (s *Service) Leading() bool { return s.aggregator.Load() != nil }

// Handled counts the events this process's aggregator has applied since
// this Service was built (duplicates and stale events included).
func (s *Service) Handled() int64 {
	n := s.handledBefore.Load()
	if agg := s.aggregator.Load(); agg != nil {
		n += agg.Handled()
	}
	return n
}

// Drain ends the live streams, so that a graceful shutdown does not wait
// for clients that would otherwise stay connected.
func (s *Service) Drain() {
	s.endStreams()
	s.hub.Close()
}
