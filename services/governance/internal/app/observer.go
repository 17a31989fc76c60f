package app

import (
	"time"

	"sharedworld.dev/services/governance/internal/domain"
)

// Observer hears what the use cases did, for the service's metrics (the
// telemetry package reports them to Prometheus); the app layer names no
// metrics library.
type Observer interface {
	// CheckScheduled: this process runs the hourly check from at on.
	CheckScheduled(at time.Time)
	// CheckSucceeded: a check completed at wall-clock time at, taking took.
	CheckSucceeded(at time.Time, took time.Duration, applied []domain.Transition)
	CheckFailed()
	// CheckFoundLeaseHeld: another check held the lease; this one did nothing.
	CheckFoundLeaseHeld()
	BallotCast()
	ProposalsCounted(counts map[domain.ProposalStatus]int64)
}

// Scheduled tells the observer that the hourly check runs from now on.
func (a *App) Scheduled() { a.obs.CheckScheduled(time.Now()) }
