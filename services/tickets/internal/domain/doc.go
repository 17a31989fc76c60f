// Package domain holds the rules of feedback tickets (CONTRACT §5 and §11):
// what a valid ticket is, which status changes the ambassador may make, who
// may upvote, and the daily filing limit. It knows nothing of HTTP, MongoDB
// or Kafka, so every rule is tested here alone; the adapters around it only
// decode, store and publish.
package domain
