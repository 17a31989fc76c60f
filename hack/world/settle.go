package world

import (
	"time"

	dto "github.com/prometheus/client_model/go"

	"sharedworld.dev/pkg/metrics"
)

// settle waits, up to max, until every outbox is empty and the published
// and consumed counters have not moved for 300 ms: the pipeline is at rest.
func (w *World) settle(max time.Duration) {
	deadline := time.Now().Add(max)
	prev, still := -1.0, 0
	for time.Now().Before(deadline) {
		backlog, moved := pipelineState()
		if backlog == 0 && moved == prev {
			still++
		} else {
			still = 0
		}
		if still >= 3 {
			return
		}
		prev = moved
		time.Sleep(100 * time.Millisecond)
	}
	w.log.Warn("shutdown went ahead before the event pipeline was at rest")
}

// pipelineState sums the outbox backlog and the published and consumed counters.
func pipelineState() (backlog, moved float64) {
	families, err := metrics.Registry.Gather()
	if err != nil {
		return 1, 0
	}
	for _, f := range families {
		switch f.GetName() {
		case "sharedworld_outbox_backlog_events":
			backlog += sum(f.GetMetric())
		case "sharedworld_events_published_total", "sharedworld_events_consumed_total":
			moved += sum(f.GetMetric())
		}
	}
	return backlog, moved
}

func sum(ms []*dto.Metric) float64 {
	total := 0.0
	for _, m := range ms {
		if g := m.GetGauge(); g != nil {
			total += g.GetValue()
		}
		if c := m.GetCounter(); c != nil {
			total += c.GetValue()
		}
	}
	return total
}
