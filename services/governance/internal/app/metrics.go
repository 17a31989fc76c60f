package app

import (
	"github.com/prometheus/client_golang/prometheus"

	"sharedworld.dev/pkg/metrics"
)

var (
	checkLastSuccess = metrics.Register(prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "sharedworld_governance_check_last_success_timestamp_seconds",
		Help: "Wall-clock Unix time of the last governance check that completed.",
	}))
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
