package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/segmentio/kafka-go"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/metrics"
	"sharedworld.dev/pkg/mongox"
)

// Handler applies one event to a projection. It must be safe to call again
// for the same event (the ledger makes that rare, not impossible).
type Handler func(ctx context.Context, e Event) error

// ErrPermanent marks a failure retrying cannot fix (the event is recorded
// as skipped and its offset committed).
var ErrPermanent = errors.New("permanent event failure")

// Ledger records the ids of applied events in the consumer's own database,
// next to the projections they changed.
type Ledger struct{ coll *mongo.Collection }

// NewLedger uses the collection "processed_events" of db.
func NewLedger(db *mongox.DB) *Ledger { return &Ledger{coll: db.Collection("processed_events")} }

// Seen reports whether the event was applied before.
func (l *Ledger) Seen(ctx context.Context, id string) (bool, error) {
	seen, err := l.SeenAmong(ctx, []string{id})
	return seen[id], err
}

// Record marks the event applied; recording twice is harmless.
func (l *Ledger) Record(ctx context.Context, e Event) error { return l.RecordAll(ctx, []Event{e}) }

// SeenAmong reports which of ids were applied before, in one read.
func (l *Ledger) SeenAmong(ctx context.Context, ids []string) (map[string]bool, error) {
	found, err := mongox.FindAll[struct {
		ID string `bson:"_id"`
	}](ctx, l.coll, bson.M{"_id": bson.M{"$in": ids}}, options.Find().SetProjection(bson.M{"_id": 1}))
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(found))
	for _, d := range found {
		seen[d.ID] = true
	}
	return seen, nil
}

// RecordAll marks the events applied in one write; recording twice is
// harmless.
func (l *Ledger) RecordAll(ctx context.Context, evs []Event) error {
	docs := make([]any, len(evs))
	now := time.Now().UTC()
	for i, e := range evs {
		docs[i] = bson.M{"_id": e.ID, "type": e.Type, "at": now}
	}
	_, err := l.coll.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	var bulk mongo.BulkWriteException
	if err == nil || !errors.As(err, &bulk) || bulk.WriteConcernError != nil {
		return err
	}
	for _, we := range bulk.WriteErrors {
		if !mongox.IsDuplicate(we.WriteError) {
			return err
		}
	}
	return nil
}

// BatchHandler applies several events, in order, with the effect of a
// Handler applied to each in turn, so that a projection catching up can
// coalesce their writes. It returns only once every effect is stored. An
// event it cannot apply it skips itself (where a Handler would return
// ErrPermanent). When it fails, the consumer applies the same events one by
// one with the Handler, so a failed batch must leave nothing that a second
// application would count twice.
type BatchHandler func(ctx context.Context, evs []Event) error

// ConsumerOptions configures a consumer.
type ConsumerOptions struct {
	Service string
	Group   string
	Topics  []string
	Brokers []string
	Ledger  *Ledger
	Handler Handler
	// Batch, when set, applies the events of a fetched batch together;
	// Handler remains the path for single events and failed batches.
	Batch  BatchHandler
	Logger *slog.Logger
}

// A batch is what the reader already holds when the first message of it
// arrives, up to maxBatch messages or batchLinger of waiting: a backlog is
// applied (and its offsets committed) in large batches, while a single
// event waits at most batchLinger longer than it would alone.
const (
	maxBatch    = 500
	batchLinger = 2 * time.Millisecond
)

// Consumer reads topics in a consumer group and applies each event exactly
// once in effect: duplicates are dropped by id through the ledger, and an
// offset is committed only after its event was applied.
type Consumer struct {
	o      ConsumerOptions
	reader *kafka.Reader
	// busy is set from a fetched message until its offset is committed;
	// lag is the reader's lag after the last commit.
	busy atomic.Bool
	lag  atomic.Int64
}

// NewConsumer builds a consumer; Run starts it.
func NewConsumer(o ConsumerOptions) *Consumer {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	r := kafka.NewReader(kafka.ReaderConfig{
		Brokers:               o.Brokers,
		GroupID:               o.Group,
		GroupTopics:           o.Topics,
		MinBytes:              1,
		MaxBytes:              10 << 20,
		MaxWait:               250 * time.Millisecond,
		QueueCapacity:         maxBatch,
		ReadBackoffMin:        5 * time.Millisecond,
		ReadBackoffMax:        100 * time.Millisecond,
		CommitInterval:        100 * time.Millisecond,
		StartOffset:           kafka.FirstOffset,
		HeartbeatInterval:     time.Second,
		SessionTimeout:        10 * time.Second,
		RebalanceTimeout:      5 * time.Second,
		JoinGroupBackoff:      200 * time.Millisecond,
		WatchPartitionChanges: true,
		ErrorLogger: kafka.LoggerFunc(func(msg string, args ...any) {
			o.Logger.Debug("kafka reader", slog.String("detail", fmt.Sprintf(msg, args...)))
		}),
	})
	return &Consumer{o: o, reader: r}
}

// Run consumes until ctx ends. Offsets are committed per batch, after
// every event of it was applied.
func (c *Consumer) Run(ctx context.Context) error {
	defer c.reader.Close()
	defer track(c)()
	for {
		batch, err := c.fetch(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			c.o.Logger.Warn("fetch failed; retrying", slog.String("error", err.Error()))
			if !sleepCtx(ctx, 200*time.Millisecond) {
				return nil
			}
			continue
		}
		if err := c.handleBatch(ctx, batch); err != nil {
			return nil // ctx ended while retrying
		}
		if err := c.reader.CommitMessages(ctx, batch...); err != nil && ctx.Err() == nil {
			c.o.Logger.Warn("commit failed; the events may be redelivered and will be dropped as duplicates", slog.String("error", err.Error()))
		}
		lag := c.reader.Stats().Lag
		last := batch[len(batch)-1]
		metrics.ConsumerLag.WithLabelValues(c.o.Service, last.Topic).Set(float64(lag))
		c.lag.Store(lag)
		c.busy.Store(false)
		moved.Add(uint64(len(batch)))
	}
}

// fetch waits for a message, then takes what else the reader holds within
// batchLinger, up to maxBatch messages. The consumer is busy from the first
// message on.
func (c *Consumer) fetch(ctx context.Context) ([]kafka.Message, error) {
	m, err := c.reader.FetchMessage(ctx)
	if err != nil {
		return nil, err
	}
	c.busy.Store(true)
	batch := []kafka.Message{m}
	more, cancel := context.WithTimeout(ctx, batchLinger)
	defer cancel()
	for len(batch) < maxBatch {
		m, err := c.reader.FetchMessage(more)
		if err != nil {
			break // the linger ended (or ctx did: the batch is still applied)
		}
		batch = append(batch, m)
	}
	return batch, nil
}

// handleBatch applies the messages' events: together through Batch when
// there is one and more than one event, otherwise (or when the batch
// failed) one by one.
func (c *Consumer) handleBatch(ctx context.Context, msgs []kafka.Message) error {
	evs := make([]Event, 0, len(msgs))
	for _, m := range msgs {
		e, err := FromMessage(m)
		if err != nil {
			metrics.EventsConsumed.WithLabelValues(c.o.Service, "unknown", "skipped").Inc()
			c.o.Logger.Error("skipping a message that is not a valid event", slog.String("error", err.Error()))
			continue
		}
		evs = append(evs, e)
	}
	if c.o.Batch != nil && len(evs) > 1 {
		err := c.applyBatch(ctx, evs)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		c.o.Logger.Warn("batch apply failed; applying its events one by one", slog.Int("events", len(evs)), slog.String("error", err.Error()))
	}
	for _, e := range evs {
		if err := c.handle(ctx, e); err != nil {
			return err
		}
	}
	return nil
}

// applyBatch applies the events the ledger has not seen through Batch and
// records them.
func (c *Consumer) applyBatch(ctx context.Context, evs []Event) error {
	fresh := evs
	if c.o.Ledger != nil {
		// The ledger drops what earlier batches applied (one read for the
		// batch); a batch's own repeats are dropped here.
		ids := make([]string, len(evs))
		for i, e := range evs {
			ids[i] = e.ID
		}
		seen, err := c.o.Ledger.SeenAmong(ctx, ids)
		if err != nil {
			return err
		}
		fresh = make([]Event, 0, len(evs))
		for _, e := range evs {
			if seen[e.ID] {
				metrics.EventsConsumed.WithLabelValues(c.o.Service, e.Type, "duplicate").Inc()
				continue
			}
			seen[e.ID] = true
			fresh = append(fresh, e)
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	if err := c.o.Batch(ctx, fresh); err != nil {
		return err
	}
	if c.o.Ledger != nil {
		if err := c.o.Ledger.RecordAll(ctx, fresh); err != nil {
			return err
		}
	}
	for _, e := range fresh {
		metrics.EventsConsumed.WithLabelValues(c.o.Service, e.Type, "applied").Inc()
	}
	return nil
}

// Idle reports whether the consumer is waiting for events with nothing left
// to read: no event being applied and no lag behind the last one it read.
func (c *Consumer) Idle() bool { return !c.busy.Load() && c.lag.Load() == 0 }

// handle applies one event, retrying transient failures with backoff until
// it succeeds or ctx ends (in which case it returns ctx's error).
func (c *Consumer) handle(ctx context.Context, e Event) error {
	backoff := 20 * time.Millisecond
	for {
		result, err := c.apply(ctx, e)
		if err == nil {
			metrics.EventsConsumed.WithLabelValues(c.o.Service, e.Type, result).Inc()
			return nil
		}
		if errors.Is(err, ErrPermanent) {
			metrics.EventsConsumed.WithLabelValues(c.o.Service, e.Type, "skipped").Inc()
			c.o.Logger.Error("skipping an event that cannot be applied", slog.String("id", e.ID), slog.String("type", e.Type), slog.String("error", err.Error()))
			return nil
		}
		metrics.ConsumeErrors.WithLabelValues(c.o.Service, e.Type).Inc()
		c.o.Logger.Warn("apply failed; retrying", slog.String("id", e.ID), slog.String("type", e.Type), slog.String("error", err.Error()))
		if !sleepCtx(ctx, backoff) {
			return ctx.Err()
		}
		backoff = min(backoff*2, 5*time.Second)
	}
}

func (c *Consumer) apply(ctx context.Context, e Event) (string, error) {
	if c.o.Ledger != nil {
		seen, err := c.o.Ledger.Seen(ctx, e.ID)
		if err != nil {
			return "", err
		}
		if seen {
			return "duplicate", nil
		}
	}
	if err := c.o.Handler(ctx, e); err != nil {
		return "", err
	}
	if c.o.Ledger != nil {
		if err := c.o.Ledger.Record(ctx, e); err != nil {
			return "", err
		}
	}
	return "applied", nil
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
