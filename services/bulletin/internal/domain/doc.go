// Package domain holds the rules of the bulletin service in plain Go: the
// feed item and its line layouts (SEED §2.5, CONTRACT §6), the world phase
// and the election trigger text, the ambassador's announcements and their
// pin rule, the projections the aggregator keeps of every other service's
// events (and how an event is applied to them so that redelivery and
// reordering change nothing), the bulletin document built from them
// (SEED §2.2–2.10), and the repositories the use cases store them through.
//
// Nothing here talks to HTTP, MongoDB or Kafka; adapters translate around it.
package domain
