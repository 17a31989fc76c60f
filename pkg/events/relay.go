package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
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

// Relay publishes outbox entries to Kafka, oldest first within a document,
// and removes each entry only after Kafka acknowledged it. A crash between
// the two republishes the entry; consumers drop the duplicate by id.
//
// Writers tell the relay which document they wrote (Notify), and the relay
// reads just those documents by _id. A sweep of every collection finds what
// notifications could not: at start (events a previous process left behind,
// unless its clean stop vouched for empty outboxes: mongox.DB.OutboxesEmpty),
// after a write in doubt (Doubt) and, on a shared database, every
// SweepEvery (events of a replica that stopped for good).
type Relay struct {
	service string
	pub     Publisher
	colls   map[string]*mongo.Collection
	order   []string // collection names as given: an aggregate's earlier events first
	log     *slog.Logger
	wake    chan struct{}
	db      *mongox.DB

	// SweepEvery is the period of the safety sweep on a shared database.
	// On an exclusive one no other process writes and every write of this
	// one is notified, so the relay sweeps only at start, when kicked, and
	// at the two ticks after a write in doubt (Doubt): a sweep reads every
	// document of every collection (FerretDB decodes each one to filter
	// it), a burst of garbage that grows with the world and set the
	// runner's peak memory, once a minute.
	SweepEvery time.Duration

	mu       sync.Mutex
	pending  map[string]map[string]struct{} // collection name → document ids
	sweep    bool
	draining bool
	doubts   int  // sweep ticks still owed to writes in doubt (exclusive database)
	ended    bool // Run returned (see Settled)
}

// NewRelay builds a relay for a service's collections in db that carry
// outboxes; it takes each document's lock in db (the one the service's
// writers take) while it marks entries sent. Documents must have string
// _ids. When one aggregate's events are spread over several collections,
// list the collection of its earlier events first: the relay drains
// collections in this order.
func NewRelay(service string, db *mongox.DB, pub Publisher, log *slog.Logger, colls ...*mongo.Collection) *Relay {
	if log == nil {
		log = slog.Default()
	}
	r := &Relay{service: service, db: db, pub: pub, colls: map[string]*mongo.Collection{}, log: log, wake: make(chan struct{}, 1),
		SweepEvery: time.Minute, pending: map[string]map[string]struct{}{}, sweep: !db.OutboxesEmpty()}
	db.KeepOutboxes(r)
	return r.Add(colls...)
}

// Add registers more collections (after those already known, in order).
// A service builds its relay first, hands it to its stores as their
// Notifier, then adds the stores' collections.
func (r *Relay) Add(colls ...*mongo.Collection) *Relay {
	for _, c := range colls {
		if _, known := r.colls[c.Name()]; !known {
			r.colls[c.Name()] = c
			r.order = append(r.order, c.Name())
		}
	}
	return r
}

// Notify tells the relay that document id of coll has new outbox entries.
func (r *Relay) Notify(coll *mongo.Collection, id string) {
	r.mu.Lock()
	ids := r.pending[coll.Name()]
	if ids == nil {
		ids = map[string]struct{}{}
		r.pending[coll.Name()] = ids
	}
	ids[id] = struct{}{}
	r.mu.Unlock()
	r.signal()
}

// Doubt tells the relay that a write to coll failed without a definite
// answer (the database hung or the connection broke): it may have been
// stored after all, with events nobody notified. The relay sweeps at its
// next two ticks, so that one comes after a database that hung has resumed
// and applied what it had received.
func (r *Relay) Doubt(*mongo.Collection) {
	r.mu.Lock()
	r.doubts = 2
	r.mu.Unlock()
}

// periodic reports whether a sweep tick sweeps (see SweepEvery).
func (r *Relay) periodic() bool {
	if r.db == nil || !r.db.Exclusive() {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.doubts == 0 {
		return false
	}
	r.doubts--
	return true
}

// Kick asks for a sweep of every collection (slow on big collections: prefer Notify).
func (r *Relay) Kick() {
	r.mu.Lock()
	r.sweep = true
	r.mu.Unlock()
	r.signal()
}

func (r *Relay) signal() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Run publishes until ctx ends, then makes a last bounded attempt so that a
// graceful shutdown leaves nothing behind that Kafka could take.
func (r *Relay) Run(ctx context.Context) {
	defer track(r)()
	r.setEnded(false)
	defer r.setEnded(true)
	backoff := 50 * time.Millisecond
	sweepTicker := time.NewTicker(r.SweepEvery)
	defer sweepTicker.Stop()
	for ctx.Err() == nil {
		_, err := r.Drain(ctx)
		var retry <-chan time.Time
		if err != nil && ctx.Err() == nil {
			metrics.PublishErrors.WithLabelValues(r.service).Inc()
			r.log.Warn("outbox publish failed; will retry", slog.String("error", err.Error()), slog.Duration("retry_in", backoff))
			retry = time.After(backoff)
			backoff = min(backoff*2, 5*time.Second)
		} else {
			backoff = 50 * time.Millisecond
		}
		if retry != nil {
			// Kafka is failing: wait out the backoff whatever else happens.
			select {
			case <-ctx.Done():
			case <-retry:
			}
			continue
		}
		select {
		case <-ctx.Done():
		case <-r.wake:
		case <-sweepTicker.C:
			if r.periodic() {
				r.Kick()
			}
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

// Idle reports whether the relay knows of no pending outbox entry, has no
// sweep to do and is not publishing.
func (r *Relay) Idle() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.pending) == 0 && !r.sweep && !r.draining
}

type pendingDoc struct {
	ID     string     `bson:"_id"`
	Outbox []bson.Raw `bson:"_outbox"`
}

var pendingFilter = bson.M{OutboxField: bson.M{"$exists": true, "$ne": bson.A{}}}

// Drain publishes everything known to be pending (and sweeps when asked)
// and returns how many events it sent. What fails stays pending.
func (r *Relay) Drain(ctx context.Context) (int, error) {
	r.mu.Lock()
	work, sweep := r.pending, r.sweep
	r.pending, r.sweep, r.draining = map[string]map[string]struct{}{}, false, true
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.draining = false
		r.mu.Unlock()
	}()

	sent := 0
	var firstErr error
	if sweep {
		metrics.OutboxSweeps.WithLabelValues(r.service).Inc()
	}
	fail := func(err error, requeue func()) {
		requeue()
		if firstErr == nil {
			firstErr = err
		}
	}
	if sweep {
		for _, name := range r.order {
			n, err := r.sweepCollection(ctx, r.colls[name])
			sent += n
			if err != nil {
				fail(err, r.Kick)
				break
			}
		}
	}
	for _, name := range r.order {
		ids, coll := work[name], r.colls[name]
		if len(ids) == 0 {
			continue
		}
		list := make([]string, 0, len(ids))
		for id := range ids {
			list = append(list, id)
		}
		for len(list) > 0 && firstErr == nil {
			batch := list[:min(len(list), 200)]
			list = list[len(batch):]
			docs, err := r.byID(ctx, coll, batch)
			if err == nil {
				var n int
				n, err = r.publish(ctx, coll, docs)
				sent += n
			}
			if err != nil {
				fail(err, func() {
					for _, id := range append(batch, list...) {
						r.Notify(coll, id)
					}
				})
			}
		}
		if firstErr != nil {
			for _, id := range list {
				r.Notify(coll, id)
			}
		}
	}
	backlog := 0
	r.mu.Lock()
	for _, ids := range r.pending {
		backlog += len(ids)
	}
	r.mu.Unlock()
	metrics.OutboxBacklog.WithLabelValues(r.service).Set(float64(backlog))
	return sent, firstErr
}

// byID reads the outboxes of the given documents in one read by their
// _id (a lookup every backend serves from its _id index).
func (r *Relay) byID(ctx context.Context, coll *mongo.Collection, ids []string) ([]pendingDoc, error) {
	found, err := mongox.FindAll[pendingDoc](ctx, coll, bson.M{"_id": bson.M{"$in": ids}},
		options.Find().SetProjection(bson.M{OutboxField: 1}))
	if err != nil {
		return nil, fmt.Errorf("read the outboxes of %d documents of %s: %w", len(ids), coll.Name(), err)
	}
	docs := found[:0]
	for _, d := range found {
		if len(d.Outbox) > 0 {
			docs = append(docs, d)
		}
	}
	return docs, nil
}

func (r *Relay) sweepCollection(ctx context.Context, coll *mongo.Collection) (int, error) {
	if sent, ok, err := r.scanSweep(ctx, coll); ok {
		return sent, err
	}
	sent := 0
	for {
		docs, err := mongox.FindAll[pendingDoc](ctx, coll, pendingFilter, options.Find().SetProjection(bson.M{OutboxField: 1}).SetLimit(200))
		if err != nil {
			return sent, fmt.Errorf("sweep outbox entries: %w", err)
		}
		if len(docs) == 0 {
			return sent, nil
		}
		n, err := r.publish(ctx, coll, docs)
		sent += n
		if err != nil {
			return sent, err
		}
	}
}

func (r *Relay) publish(ctx context.Context, coll *mongo.Collection, docs []pendingDoc) (int, error) {
	if len(docs) == 0 {
		return 0, nil
	}
	var evs []Event
	for _, d := range docs {
		for _, raw := range d.Outbox {
			var e Event
			if err := bson.Unmarshal(raw, &e); err != nil {
				return 0, fmt.Errorf("decode outbox entry in %s: %w", coll.Name(), err)
			}
			evs = append(evs, e)
		}
	}
	// Oldest first across documents too; a stable sort keeps each
	// document's own order for events of the same instant.
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].Time.Before(evs[j].Time) })
	msgs := make([]kafka.Message, len(evs))
	types := make([]string, len(evs))
	for i, e := range evs {
		msgs[i], types[i] = e.Message(), e.Type
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
	moved.Add(uint64(len(types)))
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

func (r *Relay) markSent(ctx context.Context, coll *mongo.Collection, id string, vals bson.A) error {
	defer r.db.Lock(coll, id)()
	if _, err := coll.UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$pullAll": bson.M{OutboxField: vals}}); err != nil {
		return fmt.Errorf("mark outbox entries sent in %s: %w", coll.Name(), err)
	}
	return nil
}
