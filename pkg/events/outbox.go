package events

import (
	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/mongox"
)

// OutboxField is the array field in which a document carries the events its
// writes caused but the relay has not yet published (see mongox.Docs).
const OutboxField = mongox.OutboxField

// Notifier is told which document a write left events in (see mongox.Notifier).
type Notifier = mongox.Notifier

// NopNotifier ignores notifications; the relay's sweeps still publish.
type NopNotifier = mongox.NopNotifier

// WithOutbox adds `$push: {_outbox: {$each: evts}}` to an update document,
// for writes that are not a read-modify-write of an aggregate (projections);
// aggregates change through mongox.Docs.Update.
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
