package events

import (
	"go.mongodb.org/mongo-driver/bson"
)

// OutboxField is the array field in which a document carries the events its
// last writes caused but the relay has not yet published. Because the events
// live inside the document, state and events are committed by one single-
// document write — no multi-document transaction needed.
const OutboxField = "_outbox"

// Notifier is told that a write left events in an outbox, so the relay
// publishes at once instead of at its next sweep.
type Notifier interface{ Kick() }

// NopNotifier ignores kicks; the relay's sweep still publishes.
type NopNotifier struct{}

// Kick does nothing.
func (NopNotifier) Kick() {}

// WithOutbox adds `$push: {_outbox: {$each: evts}}` to an update document.
func WithOutbox(update bson.M, evts ...Event) bson.M {
	if len(evts) == 0 {
		return update
	}
	if update == nil {
		update = bson.M{}
	}
	update["$push"] = bson.M{OutboxField: bson.M{"$each": evts}}
	return update
}
