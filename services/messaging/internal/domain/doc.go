// Package domain holds the rules of messaging (CONTRACT §8 and the messaging
// keys of §11): what a valid direct message, inbox message and commons post
// is, who may read or mark what, how a citizen's read state answers "read?"
// and "how many unread?" for broadcast notifications without a row per
// citizen, and the commons and inbox limits. It knows nothing of HTTP,
// MongoDB or Kafka; the adapters around it only decode, store and publish.
package domain
