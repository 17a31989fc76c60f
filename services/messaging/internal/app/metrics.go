package app

import (
	"github.com/prometheus/client_golang/prometheus"

	"sharedworld.dev/pkg/metrics"
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
