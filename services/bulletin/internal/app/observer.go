package app

import "time"

// Observer hears what the aggregator and the live stream did, for the
// service's metrics (the telemetry package reports them to Prometheus);
// the app layer names no metrics library.
type Observer interface {
	// EventApplied: an event was applied; result is changed or unchanged.
	EventApplied(typ, result string)
	// EventFailed: an event could not be applied; reason is invalid
	// (skipped for good) or store (retried).
	EventFailed(typ, reason string)
	// Rendered: the document was built, encoded and compressed.
	Rendered(took time.Duration, documentSize int)
	SubscribersChanged(delta int)
	// SubscriberDropped: a live follower did not keep up.
	SubscriberDropped()
	// Leading: this replica became (true) or stopped being (false) the
	// elected aggregator.
	Leading(on bool)
	// ReaderSettled: a reader caught up with the aggregator's head to seq.
	ReaderSettled(seq int64)
	// ItemDelay: a feed item reached stage ("stored" by the aggregator,
	// "served" by a reader to its live followers) d after its write.
	ItemDelay(stage string, d time.Duration)
}
