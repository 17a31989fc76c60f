package controller

import (
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

func init() {
	metrics.Registry.MustRegister(population, plotsClaimed, openTickets, activeProposals)
}

func observe(world string, s Snapshot) {
	population.WithLabelValues(world).Set(float64(s.Population))
	plotsClaimed.WithLabelValues(world).Set(float64(s.PlotsClaimed))
	openTickets.WithLabelValues(world).Set(float64(s.OpenTickets))
	activeProposals.WithLabelValues(world).Set(float64(s.ActiveProposals))
}

func forget(world string) {
	for _, g := range []*prometheus.GaugeVec{population, plotsClaimed, openTickets, activeProposals} {
		g.DeleteLabelValues(world)
	}
}
