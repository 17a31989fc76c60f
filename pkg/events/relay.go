package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/segmentio/kafka-go"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/metrics"
	"sharedworld.dev/pkg/mongox"
)

// Publisher writes messages to Kafka; *kafka.Writer is one.
type Publisher interface {
	WriteMessages(ctx context.Context, msgs ...kafka.Message) error
}

// NewWriter returns a synchronous, all-acks writer tuned for the relay: a
// short batch timeout (a lone event is not held back) and few internal
// attempts, because the relay retries with its own backoff.
func NewWriter(brokers []string) *kafka.Writer {
	return &kafka.Writer{
		Addr:                   kafka.TCP(brokers...),
		Balancer:               &kafka.Hash{},
		BatchTimeout:           time.Millisecond,
		BatchSize:              500,
		RequiredAcks:           kafka.RequireAll,
		MaxAttempts:            2,
		WriteBackoffMin:        10 * time.Millisecond,
		WriteBackoffMax:        200 * time.Millisecond,
		AllowAutoTopicCreation: true,
		WriteTimeout:           5 * time.Second,
		ReadTimeout:            5 * time.Second,
	}
}

// Relay publishes outbox entries of the given collections to Kafka, oldest
// first within a document, and removes each entry only after Kafka acknowledged it.
// A crash between the two republishes the entry; consumers drop the duplicate by id.
type Relay struct {
	service string
	pub     Publisher
	colls   []*mongo.Collection
	sweep   time.Duration
	log     *slog.Logger
	kick    chan struct{}
	locks   *mongox.Locks
}

// UseLocks makes the relay take each document's lock (the one the service's
// writers take) while it marks entries sent; see mongox.Locks for why.
func (r *Relay) UseLocks(l *mongox.Locks) *Relay {
	r.locks = l
	return r
}

// NewRelay builds a relay for a service's collections that carry outboxes.
func NewRelay(service string, pub Publisher, log *slog.Logger, colls ...*mongo.Collection) *Relay {
	if log == nil {
		log = slog.Default()
	}
	return &Relay{service: service, pub: pub, colls: colls, sweep: time.Second, log: log, kick: make(chan struct{}, 1)}
}

// Kick asks the relay to publish now.
func (r *Relay) Kick() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// Run publishes until ctx ends, then makes a last bounded attempt so that a
// graceful shutdown leaves nothing behind that Kafka could take.
func (r *Relay) Run(ctx context.Context) {
	backoff := 50 * time.Millisecond
	for {
		_, err := r.Drain(ctx)
		wait := r.sweep
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			metrics.PublishErrors.WithLabelValues(r.service).Inc()
			r.log.Warn("outbox publish failed; will retry", slog.String("error", err.Error()), slog.Duration("retry_in", backoff))
			wait = backoff
			backoff = min(backoff*2, 5*time.Second)
		} else {
			backoff = 50 * time.Millisecond
		}
		select {
		case <-ctx.Done():
		case <-r.kick:
			if err != nil {
				// Kafka was failing: honour the backoff even when kicked.
				select {
				case <-ctx.Done():
				case <-time.After(wait):
				}
			}
		case <-time.After(wait):
		}
		if ctx.Err() != nil {
			break
		}
	}
	final, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Second)
	defer cancel()
	if n, err := r.Drain(final); err != nil {
		r.log.Warn("outbox not fully drained at shutdown; the rest is published at next start", slog.String("error", err.Error()))
	} else if n > 0 {
		r.log.Info("outbox drained at shutdown", slog.Int("events", n))
	}
}

type pendingDoc struct {
	ID     any        `bson:"_id"`
	Outbox []bson.Raw `bson:"_outbox"`
}

var pendingFilter = bson.M{OutboxField: bson.M{"$exists": true, "$ne": bson.A{}}}

// Drain publishes everything pending now and returns how many events it sent.
func (r *Relay) Drain(ctx context.Context) (int, error) {
	sent, backlog := 0, 0
	defer func() { metrics.OutboxBacklog.WithLabelValues(r.service).Set(float64(backlog)) }()
	for _, coll := range r.colls {
		for {
			docs, err := r.pending(ctx, coll)
			if err != nil {
				return sent, err
			}
			if len(docs) == 0 {
				break
			}
			n, err := r.publish(ctx, coll, docs)
			sent += n
			if err != nil {
				for _, d := range docs {
					backlog += len(d.Outbox)
				}
				return sent, err
			}
		}
	}
	return sent, nil
}

func (r *Relay) pending(ctx context.Context, coll *mongo.Collection) ([]pendingDoc, error) {
	cur, err := coll.Find(ctx, pendingFilter, options.Find().SetProjection(bson.M{OutboxField: 1}).SetLimit(200))
	if err != nil {
		return nil, fmt.Errorf("find outbox entries in %s: %w", coll.Name(), err)
	}
	var docs []pendingDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("read outbox entries in %s: %w", coll.Name(), err)
	}
	return docs, nil
}

func (r *Relay) publish(ctx context.Context, coll *mongo.Collection, docs []pendingDoc) (int, error) {
	var msgs []kafka.Message
	var types []string
	for _, d := range docs {
		for _, raw := range d.Outbox {
			var e Event
			if err := bson.Unmarshal(raw, &e); err != nil {
				return 0, fmt.Errorf("decode outbox entry in %s: %w", coll.Name(), err)
			}
			msgs = append(msgs, e.Message())
			types = append(types, e.Type)
		}
	}
	if err := r.pub.WriteMessages(ctx, msgs...); err != nil {
		var we kafka.WriteErrors
		if errors.As(err, &we) {
			return 0, fmt.Errorf("publish %d events: %d failed: %w", len(msgs), we.Count(), err)
		}
		return 0, fmt.Errorf("publish %d events: %w", len(msgs), err)
	}
	for _, t := range types {
		metrics.EventsPublished.WithLabelValues(r.service, t).Inc()
	}
	for _, d := range docs {
		vals := make(bson.A, len(d.Outbox))
		for i, raw := range d.Outbox {
			vals[i] = raw
		}
		if err := r.markSent(ctx, coll, d.ID, vals); err != nil {
			return len(msgs), err
		}
	}
	return len(msgs), nil
}

func (r *Relay) markSent(ctx context.Context, coll *mongo.Collection, id any, vals bson.A) error {
	if r.locks != nil {
		defer r.locks.Doc(coll, id)()
	}
	if _, err := coll.UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$pullAll": bson.M{OutboxField: vals}}); err != nil {
		return fmt.Errorf("mark outbox entries sent in %s: %w", coll.Name(), err)
	}
	return nil
}
