package httpx

import (
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"sharedworld.dev/pkg/metrics"
)

// routeMetrics keeps the request counter and duration histogram of each
// (method, route, status) once resolved: the label lookup of a metric vector
// hashes every label and takes its lock, on every request otherwise.
type routeMetrics struct {
	service string
	seen    sync.Map // routeKey → routeSeries
}

type routeKey struct {
	method, route string
	status        int
}

type routeSeries struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

func newRouteMetrics(service string) *routeMetrics { return &routeMetrics{service: service} }

// observe on a nil routeMetrics (an unmetered app) records nothing.
func (m *routeMetrics) observe(method, route string, status int, elapsed time.Duration) {
	if m == nil {
		return
	}
	k := routeKey{method, route, status}
	v, ok := m.seen.Load(k)
	if !ok {
		v, _ = m.seen.LoadOrStore(k, routeSeries{
			requests: metrics.HTTPRequests.WithLabelValues(m.service, method, route, strconv.Itoa(status)),
			duration: metrics.HTTPDuration.WithLabelValues(m.service, method, route),
		})
	}
	s := v.(routeSeries)
	s.requests.Inc()
	s.duration.Observe(elapsed.Seconds())
}
