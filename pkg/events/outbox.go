package events

import (
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
)

// OutboxField is the array field in which a document carries the events its
// last writes caused but the relay has not yet published. Because the events
// live inside the document, state and events are committed by one single-
// document write — no multi-document transaction needed.
const OutboxField = "_outbox"

// Notifier is told which document a write left events in, so the relay
// publishes them at once by _id (a cheap lookup on every backend) instead of
// waiting for a sweep of the whole collection.
type Notifier interface {
	Notify(coll *mongo.Collection, id string)
}

// NopNotifier ignores notifications; the relay's sweeps still publish.
type NopNotifier struct{}

// Notify does nothing.
func (NopNotifier) Notify(*mongo.Collection, string) {}

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
