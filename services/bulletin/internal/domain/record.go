package domain

import (
	"errors"
	"fmt"
	"time"

	"sharedworld.dev/pkg/clock"
)

// RecordKind names a kind of projection record; the store keeps one
// collection per kind.
type RecordKind string

// Projection record kinds.
const (
	KindCitizen      RecordKind = "citizen"
	KindPlot         RecordKind = "plot"
	KindTicket       RecordKind = "ticket"
	KindProposal     RecordKind = "proposal"
	KindElection     RecordKind = "election"
	KindSteward      RecordKind = "steward"
	KindAnnouncement RecordKind = "announcement"
	KindGarden       RecordKind = "garden"
)

// Record is one projection document: one per aggregate (per office for
// stewards, one for the garden).
//
// Revision only grows as the record takes in newer events; the store writes
// a record only over one with a revision no higher, so a stale writer can
// never put back an older state. Equal revisions are allowed because an
// older event may still fill in facts the record lacked (a ticket's title
// learnt from ticket.filed after ticket.status_changed).
type Record interface {
	Kind() RecordKind
	Key() string
	Revision() uint64
}

// ErrInvalidEvent marks an event that can never be applied (no aggregate id,
// no version). Retrying cannot help; the aggregator counts it as an apply
// error and moves on.
var ErrInvalidEvent = errors.New("invalid event")

func invalidEvent(eventType, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrInvalidEvent, eventType, fmt.Sprintf(format, args...))
}

// requireAggregate checks what every versioned event must carry.
func requireAggregate(eventType, id string, version uint64) error {
	if id == "" {
		return invalidEvent(eventType, "no aggregate id")
	}
	if version == 0 {
		return invalidEvent(eventType, "aggregate %s has no version", id)
	}
	return nil
}

// ms is a time as it is stored (clock.Stored), so memory and database
// agree; an unknown (zero) time stays the zero time.
func ms(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return clock.Stored(t)
}

// fillString sets *dst to v when *dst is empty and v is not, and reports
// whether it did. Facts that never change (a title, a creation time) are
// filled from whichever event brings them first, whatever its version.
func fillString(dst *string, v string) bool {
	if *dst == "" && v != "" {
		*dst = v
		return true
	}
	return false
}

func fillTime(dst *time.Time, v time.Time) bool {
	if dst.IsZero() && !v.IsZero() {
		*dst = ms(v)
		return true
	}
	return false
}

func fillInt(dst *int64, v int64) bool {
	if *dst == 0 && v != 0 {
		*dst = v
		return true
	}
	return false
}
