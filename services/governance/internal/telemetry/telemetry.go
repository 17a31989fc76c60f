// Package telemetry is the governance service's Prometheus adapter of
// app.Observer: what the use cases report, as sharedworld_governance_*
// metrics.
package telemetry

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"sharedworld.dev/pkg/metrics"
	"sharedworld.dev/services/governance/internal/app"
	"sharedworld.dev/services/governance/internal/domain"
)

// The two check timestamps are vectors without labels so that neither is
// exported before it is known: a gauge reads 0 until set, and "last success
// at 1970" is a lie that pages on every fresh start.
var (
	checkLastSuccess = metrics.Register(prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "sharedworld_governance_check_last_success_timestamp_seconds",
		Help: "Wall-clock Unix time of the last governance check this process completed (absent until one completes).",
	}, nil))
	checkScheduledSince = metrics.Register(prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "sharedworld_governance_check_scheduled_since_timestamp_seconds",
		Help: "Wall-clock Unix time since which this process runs the hourly governance check (absent when it runs none); a check is overdue counted from here until one succeeds.",
	}, nil))
	transitionsApplied = metrics.Register(prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sharedworld_governance_transitions_applied_total",
		Help: "Transitions the governance check applied, by kind (proposal, election, steward) and new status.",
	}, []string{"kind", "to"}))
	checkSeconds = metrics.Register(prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "sharedworld_governance_check_duration_seconds",
		Help:    "Duration of governance checks that held the lease.",
		Buckets: prometheus.ExponentialBuckets(0.005, 2, 14),
	}))
	leaseContention = metrics.Register(prometheus.NewCounter(prometheus.CounterOpts{
		Name: "sharedworld_governance_check_lease_contention_total",
		Help: "Governance checks that found another check holding the lease and did nothing.",
	}))
	checkFailures = metrics.Register(prometheus.NewCounter(prometheus.CounterOpts{
		Name: "sharedworld_governance_check_failures_total",
		Help: "Governance checks that stopped on an error (the next check resumes where it stopped).",
	}))
	ballotsCast = metrics.Register(prometheus.NewCounter(prometheus.CounterOpts{
		Name: "sharedworld_governance_ballots_cast_total",
		Help: "Ballots accepted on proposals.",
	}))
	proposalsByStatus = metrics.Register(prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "sharedworld_governance_proposals",
		Help: "Proposals by status, as counted by the last governance check.",
	}, []string{"status"}))
)

// Observer reports to the metrics above.
type Observer struct{}

var _ app.Observer = Observer{}

// CheckScheduled records that this process runs the hourly check from at on.
func (Observer) CheckScheduled(at time.Time) {
	checkScheduledSince.WithLabelValues().Set(float64(at.Unix()))
}

// CheckSucceeded records a completed check at wall-clock time at, its
// duration and what it applied.
func (Observer) CheckSucceeded(at time.Time, took time.Duration, applied []domain.Transition) {
	checkSeconds.Observe(took.Seconds())
	checkLastSuccess.WithLabelValues().Set(float64(at.Unix()))
	for _, t := range applied {
		transitionsApplied.WithLabelValues(t.Kind, t.To).Inc()
	}
}

func (Observer) CheckFailed()         { checkFailures.Inc() }
func (Observer) CheckFoundLeaseHeld() { leaseContention.Inc() }
func (Observer) BallotCast()          { ballotsCast.Inc() }

// ProposalsCounted sets the proposals-by-status gauge.
func (Observer) ProposalsCounted(counts map[domain.ProposalStatus]int64) {
	for _, s := range domain.ProposalStatuses {
		proposalsByStatus.WithLabelValues(string(s)).Set(float64(counts[s]))
	}
}
