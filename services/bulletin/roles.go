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
// head until ctx ends, when the lease is lost or the process stops.
func (s *Service) lead(ctx context.Context, term int64) {
	// The hub only orders settled seqs for the head: nobody subscribes here.
	hub := app.NewHub(1, s.opts.SubscriberBuffer, telemetry.Observer{})
	agg := app.NewAggregator(s.world, s.st.projections, s.st.feed, hub, s.deps.Logger, telemetry.Observer{})
	for {
		err := agg.Load(ctx)
		if err == nil {
			break
		}
		s.deps.Logger.Warn("load projections for leading; retrying", slog.String("error", err.Error()))
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
	s.aggregator.Store(agg)
	telemetry.Observer{}.Leading(true)
	defer func() {
		telemetry.Observer{}.Leading(false)
		s.aggregator.Store(nil)
		s.handledBefore.Add(agg.Handled())
	}()
	keeper := &app.HeadKeeper{Store: s.st.renderings, Signal: signal.Sender{Pub: s.deps.Publisher}, Board: agg.Board(), Hub: hub, Term: term, Log: s.deps.Logger}
	if err := s.runAggregator(ctx, agg, keeper); err != nil && ctx.Err() == nil {
		s.deps.Logger.Error("aggregator stopped", slog.String("error", err.Error()))
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
