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
	"time"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/proto/catalog"
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
}

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
	return o
}

// Service is the bulletin service.
type Service struct {
	deps       platform.Deps
	aggregator *app.Aggregator
	hub        *app.Hub
	handlers   *bulletinhttp.Handlers
	relay      *events.Relay
	// streams ends when Run ends, closing every live stream.
	streams    context.Context
	endStreams context.CancelFunc
}

// New builds the bulletin, prepares its storage and loads the stored
// projections, so the bulletin is served correctly before Run starts.
func New(ctx context.Context, deps platform.Deps, opts Options) (*Service, error) {
	opts = opts.withDefaults()
	st, err := openStores(ctx, deps)
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
	s := &Service{deps: deps, hub: app.NewHub(opts.MaxSubscribers, opts.SubscriberBuffer, telemetry.Observer{})}
	s.streams, s.endStreams = context.WithCancel(context.WithoutCancel(ctx))
	s.aggregator = app.NewAggregator(opts.World.WithDefaults(founded), st.projections, st.feed, s.hub, deps.Logger, telemetry.Observer{})
	if err := s.aggregator.Load(ctx); err != nil {
		return nil, err
	}
	s.relay = events.NewRelay("bulletin", deps.DB, deps.Publisher, deps.Logger)
	announcements := store.NewAnnouncements(deps.DB, s.relay)
	s.relay.Add(announcements.Collection())
	s.handlers = &bulletinhttp.Handlers{
		Board:           s.aggregator.Board(),
		Feed:            app.NewFeed(st.feed, s.hub, epoch),
		Announcements:   app.NewAnnouncements(announcements, deps.Clock),
		AmbassadorToken: deps.AmbassadorToken,
		Heartbeat:       opts.Heartbeat,
		Streams:         s.streams,
	}
	return s, nil
}

type stores struct {
	projections projectionRepository
	feed        feedRepository
	meta        *store.Meta
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

func newStores(deps platform.Deps) stores {
	if deps.DB.Exclusive() {
		return stores{projections: store.NewMirroredProjections(deps.DB), feed: store.NewMirroredFeed(deps.DB), meta: store.NewMeta(deps.DB)}
	}
	return stores{projections: store.NewProjections(deps.DB), feed: store.NewFeed(deps.DB), meta: store.NewMeta(deps.DB)}
}

func openStores(ctx context.Context, deps platform.Deps) (stores, error) {
	st := newStores(deps)
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

// Routes registers the bulletin's public routes.
func (s *Service) Routes(r fiber.Router) { s.handlers.Routes(r) }

// BodyLimits: the bulletin uses the default limit everywhere.
func (s *Service) BodyLimits() map[string]int { return nil }

// Run consumes every topic, renders after changes and publishes the outbox
// until ctx ends; then it closes the live streams.
func (s *Service) Run(ctx context.Context) error {
	defer s.endStreams()
	defer s.hub.Close()
	consumer := events.NewConsumer(events.ConsumerOptions{
		Service: "bulletin", Group: ConsumerGroup, Topics: catalog.AllTopics(), Brokers: s.deps.Brokers,
		Handler: s.handle, Batch: s.handleBatch, Logger: s.deps.Logger,
	})
	done := make(chan struct{}, 2)
	go func() { s.aggregator.RenderLoop(ctx); done <- struct{}{} }()
	go func() { s.relay.Run(ctx); done <- struct{}{} }()
	err := consumer.Run(ctx)
	<-done
	<-done
	return err
}

// handle applies one consumed event. The aggregator is idempotent by itself
// (versions per aggregate, feed entries keyed by event id), so the consumer
// runs without a separate ledger: a redelivered event plans no change and
// costs no write.
func (s *Service) handle(ctx context.Context, e events.Event) error {
	return apply(ctx, s.aggregator, e)
}

// handleBatch applies a fetched batch of events together (the catch-up
// path: their writes are coalesced). An event that cannot be translated is
// skipped, as handle would make the consumer skip it.
func (s *Service) handleBatch(ctx context.Context, evs []events.Event) error {
	des := make([]domain.Event, 0, len(evs))
	for _, e := range evs {
		de, err := messages.ToDomain(e)
		if err != nil {
			s.deps.Logger.Error("skipping an event that cannot be applied", slog.String("id", e.ID), slog.String("type", e.Type), slog.String("error", err.Error()))
			continue
		}
		des = append(des, de)
	}
	return s.aggregator.ApplyBatch(ctx, des)
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

// Board is the rendered bulletin (for the local runner's web board and tests).
func (s *Service) Board() *app.Board { return s.aggregator.Board() }

// Handled counts the events the aggregator has applied since this Service
// was built (duplicates and stale events included).
func (s *Service) Handled() int64 { return s.aggregator.Handled() }

// Drain ends the live streams, so that a graceful shutdown does not wait
// for clients that would otherwise stay connected.
func (s *Service) Drain() {
	s.endStreams()
	s.hub.Close()
}
