package events

import "sharedworld.dev/pkg/mongox"

// OutboxField is the array field in which a document carries the events its
// writes caused but the relay has not yet published (see mongox.Docs).
const OutboxField = mongox.OutboxField

// Notifier is told which document a write left events in (see mongox.Notifier).
type Notifier = mongox.Notifier

// NopNotifier ignores notifications; the relay's sweeps still publish.
type NopNotifier = mongox.NopNotifier
