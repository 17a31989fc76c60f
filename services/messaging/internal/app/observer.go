package app

// Observer hears what the use cases did, for the service's metrics (the
// telemetry package reports them to Prometheus); the app layer names no
// metrics library.
type Observer interface {
	MessageSent()
	CommonsPosted(channel string)
	// InboxBacklogChanged moves the count of inbox messages awaiting a reply.
	InboxBacklogChanged(delta int)
	// InboxBacklog sets that count (from the store, at start).
	InboxBacklog(n int64)
	// NotificationsDelivered counts a broadcast's deliveries: its audience.
	NotificationsDelivered(kind string, n int64)
}
