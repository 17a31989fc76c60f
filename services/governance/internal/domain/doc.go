// Package domain holds the rules of the world's self-government (CONTRACT §7
// and the governance keys of §11): the proposal types and their timetables,
// the proposal life cycle with its quorum and threshold, elections for the
// five offices with their plurality rule, stewards' terms and recall, and the
// order in which the governance check applies what is due. It knows nothing
// of HTTP, MongoDB or Kafka; all times come from the caller (the world's
// clock), already at storage precision.
package domain
