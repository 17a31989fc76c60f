// Package telemetry is the bulletin's Prometheus adapter of app.Observer:
// what the aggregator and the live stream report, as
// sharedworld_bulletin_* metrics.
package telemetry

import (
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"sharedworld.dev/pkg/metrics"
	"sharedworld.dev/services/bulletin/internal/app"
)

// The bulletin's own collectors, registered once on the process registry
// (one process may build several services, in tests and the local runner).
var (
	eventsApplied = metrics.Register(prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sharedworld_bulletin_events_applied_total",
		Help: "Events the aggregator applied, by event type and result (changed, unchanged).",
	}, []string{"type", "result"}))
	applyErrors = metrics.Register(prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sharedworld_bulletin_apply_errors_total",
		Help: "Events the aggregator failed to apply, by event type and reason (invalid: skipped for good; store: retried).",
	}, []string{"type", "reason"}))
	sseSubscribers = metrics.Register(prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "sharedworld_bulletin_sse_subscribers",
		Help: "Clients connected to the live feed stream.",
	}))
	sseDropped = metrics.Register(prometheus.NewCounter(prometheus.CounterOpts{
		Name: "sharedworld_bulletin_sse_dropped_total",
		Help: "Live feed clients dropped because they did not keep up.",
	}))
	renderSeconds = metrics.Register(prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "sharedworld_bulletin_render_seconds",
		Help:    "Time to build, encode and compress the bulletin document.",
		Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1},
	}))
	documentBytes = metrics.Register(prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "sharedworld_bulletin_document_bytes",
		Help: "Size of the rendered bulletin document, uncompressed.",
	}))
	_ = metrics.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "sharedworld_bulletin_staleness_seconds",
		Help: "Seconds since the aggregator last applied an event (0 before the first).",
	}, staleness))
)

// lastApplied is when the newest aggregator of the process last applied an
// event, in Unix nanoseconds.
var lastApplied atomic.Int64

func staleness() float64 {
	t := lastApplied.Load()
	if t == 0 {
		return 0
	}
	return time.Since(time.Unix(0, t)).Seconds()
}

// The aggregator's election.
var (
	leading = metrics.Register(prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "sharedworld_bulletin_aggregator_leading",
		Help: "1 while this replica is the elected aggregator.",
	}))
	leaderships = metrics.Register(prometheus.NewCounter(prometheus.CounterOpts{
		Name: "sharedworld_bulletin_aggregator_leaderships_total",
		Help: "Times this replica became the elected aggregator.",
	}))
	readerLag = metrics.Register(prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "sharedworld_bulletin_reader_settled_seq",
		Help: "The feed seq up to which this reader has caught up with the aggregator.",
	}))
)

// Observer reports to the metrics above.
type Observer struct{}

var _ app.Observer = Observer{}

func (Observer) EventApplied(typ, result string) {
	eventsApplied.WithLabelValues(typ, result).Inc()
	lastApplied.Store(time.Now().UnixNano())
}
func (Observer) EventFailed(typ, reason string) { applyErrors.WithLabelValues(typ, reason).Inc() }
func (Observer) Rendered(took time.Duration, documentSize int) {
	renderSeconds.Observe(took.Seconds())
	documentBytes.Set(float64(documentSize))
}
func (Observer) SubscribersChanged(delta int) { sseSubscribers.Add(float64(delta)) }
func (Observer) SubscriberDropped()           { sseDropped.Inc() }
func (Observer) Leading(on bool) {
	if on {
		leading.Set(1)
		leaderships.Inc()
		return
	}
	leading.Set(0)
}
func (Observer) ReaderSettled(seq int64) { readerLag.Set(float64(seq)) }

func (Observer) ItemDelay(stage string, d time.Duration) {
	itemDelay.WithLabelValues(stage).Observe(d.Seconds())
}

// itemDelay is the write → stored and write → served delay of feed items:
// where the time of a write → visible goes.
var itemDelay = metrics.Register(prometheus.NewHistogramVec(prometheus.HistogramOpts{
	Name:    "sharedworld_bulletin_item_delay_seconds",
	Help:    "Seconds from a feed item's write to its stage: stored by the aggregator, served by a reader to its live followers.",
	Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
}, []string{"stage"}))
