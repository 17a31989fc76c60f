// Package telemetry is the messaging service's Prometheus adapter of
// app.Observer: what the use cases report, as sharedworld_messaging_*
// metrics.
package telemetry

import (
	"github.com/prometheus/client_golang/prometheus"

	"sharedworld.dev/pkg/metrics"
	"sharedworld.dev/services/messaging/internal/app"
)

var (
	messagesSent = metrics.Register(prometheus.NewCounter(prometheus.CounterOpts{
		Name: "sharedworld_messaging_messages_sent_total",
		Help: "Direct messages delivered.",
	}))
	// notificationsFannedOut counts deliveries, not writes: a broadcast is
	// stored once and reaches every living citizen through read states.
	notificationsFannedOut = metrics.Register(prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sharedworld_messaging_notifications_fanned_out_total",
		Help: "Notifications delivered by broadcasts (broadcasts times the living population at the time), by kind; counted, not written.",
	}, []string{"kind"}))
	inboxBacklog = metrics.Register(prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "sharedworld_messaging_inbox_backlog_messages",
		Help: "Inbox messages waiting for the ambassador's reply.",
	}))
	commonsPosts = metrics.Register(prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sharedworld_messaging_commons_posts_total",
		Help: "Commons posts made, by channel.",
	}, []string{"channel"}))
)

// Observer reports to the metrics above.
type Observer struct{}

var _ app.Observer = Observer{}

func (Observer) MessageSent()                  { messagesSent.Inc() }
func (Observer) CommonsPosted(channel string)  { commonsPosts.WithLabelValues(channel).Inc() }
func (Observer) InboxBacklogChanged(delta int) { inboxBacklog.Add(float64(delta)) }
func (Observer) InboxBacklog(n int64)          { inboxBacklog.Set(float64(n)) }
func (Observer) NotificationsDelivered(kind string, n int64) {
	notificationsFannedOut.WithLabelValues(kind).Add(float64(n))
}
