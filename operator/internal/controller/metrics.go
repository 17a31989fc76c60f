package controller

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// The world at a glance, as the operator last read it from the bulletin:
// the dashboards' population, plots and open tickets.
var (
	population = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "sharedworld_world_population",
		Help: "Living citizens, as the bulletin shows them.",
	}, []string{"world"})
	plotsClaimed = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "sharedworld_world_plots_claimed",
		Help: "Claimed plots, as the bulletin shows them.",
	}, []string{"world"})
	openTickets = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "sharedworld_world_open_tickets",
		Help: "Open tickets, as the bulletin shows them.",
	}, []string{"world"})
	activeProposals = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "sharedworld_world_active_proposals",
		Help: "Proposals in discussion or voting, as the bulletin shows them.",
	}, []string{"world"})
)

// The World resources' own health, for the SharedWorldWorldNotReady alert:
// a World that is not Ready, or whose last read of the bulletin is old,
// shows a status nobody should trust.
var (
	worldReady = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "sharedworld_operator_world_ready",
		Help: "1 when the World's Ready condition is True, else 0.",
	}, []string{"namespace", "world"})
	// Set only after a successful read: an epoch-zero value before the
	// first read would look like a world stale since 1970.
	worldLastRead = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "sharedworld_operator_world_last_read_timestamp_seconds",
		Help: "Unix time of the operator's last successful read of the World from the bulletin.",
	}, []string{"namespace", "world"})
)

func init() {
	metrics.Registry.MustRegister(population, plotsClaimed, openTickets, activeProposals, worldReady, worldLastRead)
}

func observe(world string, s Snapshot) {
	population.WithLabelValues(world).Set(float64(s.Population))
	plotsClaimed.WithLabelValues(world).Set(float64(s.PlotsClaimed))
	openTickets.WithLabelValues(world).Set(float64(s.OpenTickets))
	activeProposals.WithLabelValues(world).Set(float64(s.ActiveProposals))
}

func observeReady(namespace, name string, ready bool) {
	v := 0.0
	if ready {
		v = 1
	}
	worldReady.WithLabelValues(namespace, name).Set(v)
}

func observeRead(namespace, name string, at time.Time) {
	worldLastRead.WithLabelValues(namespace, name).Set(float64(at.UnixNano()) / 1e9)
}

// forget drops a World's series once it is gone, so no alert fires for a
// World that no longer exists.
func forget(namespace, name string) {
	for _, g := range []*prometheus.GaugeVec{population, plotsClaimed, openTickets, activeProposals} {
		g.DeleteLabelValues(namespace + "/" + name)
	}
	worldReady.DeleteLabelValues(namespace, name)
	worldLastRead.DeleteLabelValues(namespace, name)
}
