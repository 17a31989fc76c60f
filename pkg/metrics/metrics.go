// Package metrics holds the process's Prometheus collectors, all named
// sharedworld_* with units, labelled by service so that one process (the local
// runner) can host every service without collisions.
package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Registry is the process-wide registry every collector is registered on.
var Registry = newRegistry()

func newRegistry() *prometheus.Registry {
	r := prometheus.NewRegistry()
	r.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return r
}

// Register adds a service's own collector to the process registry (once per
// process: declare service collectors as package variables).
func Register[C prometheus.Collector](c C) C {
	Registry.MustRegister(c)
	return c
}

var (
	// HTTPRequests counts requests by route and status class (RED: rate, errors).
	HTTPRequests = Register(prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sharedworld_http_requests_total",
		Help: "HTTP requests handled, by service, method, route pattern and status code.",
	}, []string{"service", "method", "route", "code"}))
	// HTTPDuration measures request latency (RED: duration).
	HTTPDuration = Register(prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "sharedworld_http_request_duration_seconds",
		Help:    "HTTP request latency in seconds, by service, method and route pattern.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
	}, []string{"service", "method", "route"}))
	// EventsPublished counts events the outbox relay delivered to Kafka.
	EventsPublished = Register(prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sharedworld_events_published_total",
		Help: "Events published to Kafka by the outbox relay, by service and event type.",
	}, []string{"service", "type"}))
	// PublishErrors counts failed publish attempts (retried).
	PublishErrors = Register(prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sharedworld_events_publish_errors_total",
		Help: "Failed attempts to publish outbox events to Kafka (they are retried).",
	}, []string{"service"}))
	// OutboxSweeps counts the relay's sweeps of every outbox collection.
	OutboxSweeps = Register(prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sharedworld_outbox_sweeps_total",
		Help: "Sweeps of every outbox collection by the relay (at start unless the last stop left every outbox empty, when kicked, after a write in doubt, and periodically on a shared database).",
	}, []string{"service"}))
	// OutboxBacklog is the number of events written but not yet published.
	OutboxBacklog = Register(prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "sharedworld_outbox_backlog_events",
		Help: "Events waiting in the outbox, as seen by the relay's last sweep.",
	}, []string{"service"}))
	// EventsConsumed counts events applied by consumers.
	EventsConsumed = Register(prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sharedworld_events_consumed_total",
		Help: "Events handled by a consumer, by service, event type and result (applied, duplicate, skipped).",
	}, []string{"service", "type", "result"}))
	// ConsumeErrors counts failed applies (retried).
	ConsumeErrors = Register(prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sharedworld_events_apply_errors_total",
		Help: "Failed attempts to apply a consumed event (retried with backoff).",
	}, []string{"service", "type"}))
	// ConsumerLag is the number of messages behind the partition head.
	ConsumerLag = Register(prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "sharedworld_consumer_lag_messages",
		Help: "Messages between a consumer's position and the partition head, by service and topic.",
	}, []string{"service", "topic"}))
	// ProviderKeys is the number of identity provider keys the host's
	// verifier holds: zero means no certificate can be verified (the host
	// is not ready then, see auth.Verifier.Ready).
	ProviderKeys = Register(prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "sharedworld_auth_provider_keys",
		Help: "Identity provider signing keys loaded by the verifier (0: every certificate is refused and the host is not ready).",
	}))
	// ProviderRefreshFailures counts failed fetches of the provider's
	// documents (the previous keys or list are kept).
	ProviderRefreshFailures = Register(prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sharedworld_auth_provider_refresh_failures_total",
		Help: "Failed fetches of the identity provider's documents, by document (keys, revocations).",
	}, []string{"document"}))
)
