package bulletin

import (
	"context"
	"log/slog"
	"time"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/proto/catalog"
	"sharedworld.dev/services/bulletin/internal/app"
	"sharedworld.dev/services/bulletin/internal/domain"
	"sharedworld.dev/services/bulletin/internal/signal"
	"sharedworld.dev/services/bulletin/internal/telemetry"
)

// runReader follows the aggregator's head (signalled over Kafka, and read
// from the store every app.ResyncEvery) until ctx ends.
func (s *Service) runReader(ctx context.Context) error {
	heads := make(chan domain.Head, 1)
	received := make(chan struct{})
	go func() { signal.Receive(ctx, s.deps.Brokers, s.deps.Logger, heads); close(received) }()
	s.reader.Run(ctx, heads)
	<-received
	return nil
}

// lead is one leadership of an aggregator replica: it loads the stored
// projections afresh (the previous leader wrote them; memory from an
// earlier leadership is stale), then applies events and keeps the readers'
// head until ctx ends, when the lease is lost or the process stops. When
// the aggregator finds another writer in the feed (a previous leader still
// writing), the run ends and a new one loads the store again: its events
// are delivered again from the last committed offsets.
func (s *Service) lead(ctx context.Context, term int64) {
	telemetry.Observer{}.Leading(true)
	defer telemetry.Observer{}.Leading(false)
	for ctx.Err() == nil {
		s.leadOnce(ctx, term)
	}
}

// leadOnce is one run of lead, from a fresh load to its end.
func (s *Service) leadOnce(ctx context.Context, term int64) {
	run, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	// The hub only orders settled seqs for the head: nobody subscribes here.
	hub := app.NewHub(1, s.opts.SubscriberBuffer, telemetry.Observer{})
	agg := app.NewAggregator(s.world, s.st.projections, s.st.feed, hub, s.deps.Logger, telemetry.Observer{})
	agg.OnSuperseded(stop)
	for {
		err := agg.Load(run)
		if err == nil {
			break
		}
		s.deps.Logger.Warn("load projections for leading; retrying", slog.String("error", err.Error()))
		select {
		case <-run.Done():
			return
		case <-time.After(time.Second):
		}
	}
	s.aggregator.Store(agg)
	defer func() {
		s.aggregator.Store(nil)
		s.handledBefore.Add(agg.Handled())
	}()
	keeper := &app.HeadKeeper{Store: s.st.renderings, Signal: signal.Sender{Pub: s.deps.Publisher}, Board: agg.Board(), Hub: hub, Term: term, Log: s.deps.Logger}
	err := s.runAggregator(run, agg, keeper)
	if ctx.Err() != nil {
		return
	}
	s.deps.Logger.Warn("aggregator run ended while leading; loading the store afresh",
		slog.Any("error", err), slog.Any("cause", context.Cause(run)))
	if run.Err() == nil {
		select { // not a tight loop on a failure that repeats
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// runAggregator consumes every topic into agg and renders after changes
// (and, when keeper is set, keeps the readers' head) until ctx ends.
func (s *Service) runAggregator(ctx context.Context, agg *app.Aggregator, keeper *app.HeadKeeper) error {
	consumer := events.NewConsumer(events.ConsumerOptions{
		Service: "bulletin", Group: ConsumerGroup, Topics: catalog.AllTopics(), Brokers: s.deps.Brokers,
		Handler: s.handle(agg), Batch: s.handleBatch(agg), Logger: s.deps.Logger,
	})
	done := make(chan struct{}, 2)
	go func() { agg.RenderLoop(ctx); done <- struct{}{} }()
	go func() {
		if keeper != nil {
			keeper.Run(ctx)
		}
		done <- struct{}{}
	}()
	err := consumer.Run(ctx)
	<-done
	<-done
	return err
}
