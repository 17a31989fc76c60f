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
	err := l.coll.FindOne(ctx, bson.M{"_id": id}).Err()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return false, nil
	}
	return err == nil, err
}

// Record marks the event applied; recording twice is harmless.
func (l *Ledger) Record(ctx context.Context, e Event) error {
	_, err := l.coll.InsertOne(ctx, bson.M{"_id": e.ID, "type": e.Type, "at": time.Now().UTC()})
	if err != nil && !mongo.IsDuplicateKeyError(err) {
		return err
	}
	return nil
}

// ConsumerOptions configures a consumer.
type ConsumerOptions struct {
	Service string
	Group   string
	Topics  []string
	Brokers []string
	Ledger  *Ledger
	Handler Handler
	Logger  *slog.Logger
}

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

// Run consumes until ctx ends.
func (c *Consumer) Run(ctx context.Context) error {
	defer c.reader.Close()
	defer track(c)()
	for {
		m, err := c.reader.FetchMessage(ctx)
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
		c.busy.Store(true)
		if err := c.handle(ctx, m); err != nil {
			return nil // ctx ended while retrying
		}
		if err := c.reader.CommitMessages(ctx, m); err != nil && ctx.Err() == nil {
			c.o.Logger.Warn("commit failed; the event may be redelivered and will be dropped as a duplicate", slog.String("error", err.Error()))
		}
		lag := c.reader.Stats().Lag
		metrics.ConsumerLag.WithLabelValues(c.o.Service, m.Topic).Set(float64(lag))
		c.lag.Store(lag)
		c.busy.Store(false)
		moved.Add(1)
	}
}

// Idle reports whether the consumer is waiting for events with nothing left
// to read: no event being applied and no lag behind the last one it read.
func (c *Consumer) Idle() bool { return !c.busy.Load() && c.lag.Load() == 0 }

// handle applies one message, retrying transient failures with backoff until
// it succeeds or ctx ends (in which case it returns ctx's error).
func (c *Consumer) handle(ctx context.Context, m kafka.Message) error {
	e, err := FromMessage(m)
	if err != nil {
		metrics.EventsConsumed.WithLabelValues(c.o.Service, "unknown", "skipped").Inc()
		c.o.Logger.Error("skipping a message that is not a valid event", slog.String("error", err.Error()))
		return nil
	}
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
