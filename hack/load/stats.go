package load

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Recorder counts the answers of every route and keeps their latencies.
type Recorder struct {
	mu     sync.Mutex
	routes map[string]*routeStats
	// errs keeps the first few errors, to show what went wrong.
	errs []string
}

type routeStats struct {
	ok, refused, unexpected, errors int
	byStatus                        map[int]int
	lat                             []time.Duration
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder { return &Recorder{routes: map[string]*routeStats{}} }

// Note records one answer. A 5xx or a transport error is an error; a 4xx
// among refusals is a refusal the contract prescribes; any other 4xx is
// unexpected (the generator or the world broke a rule).
func (r *Recorder) Note(route string, a Answer, refusals []int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.routes[route]
	if s == nil {
		s = &routeStats{byStatus: map[int]int{}}
		r.routes[route] = s
	}
	switch {
	case a.Err != nil || a.Status >= 500:
		s.errors++
		r.keep(route, a)
	case a.Status >= 400 && slices.Contains(refusals, a.Status):
		s.refused++
	case a.Status >= 400:
		s.unexpected++
		r.keep(route, a)
	default:
		s.ok++
	}
	if a.Err == nil {
		s.byStatus[a.Status]++
		s.lat = append(s.lat, a.Latency)
	}
}

func (r *Recorder) keep(route string, a Answer) {
	if len(r.errs) >= 10 {
		return
	}
	if a.Err != nil {
		r.errs = append(r.errs, fmt.Sprintf("%s: %v", route, a.Err))
		return
	}
	r.errs = append(r.errs, fmt.Sprintf("%s: %d %s: %s", route, a.Status, str(a.Body, "error"), str(a.Body, "message")))
}

// Totals are the sums over every route.
type Totals struct {
	Requests, OK, Refused, Unexpected, Errors int
}

// Totals sums every route.
func (r *Recorder) Totals() Totals {
	r.mu.Lock()
	defer r.mu.Unlock()
	var t Totals
	for _, s := range r.routes {
		t.OK += s.ok
		t.Refused += s.refused
		t.Unexpected += s.unexpected
		t.Errors += s.errors
	}
	t.Requests = t.OK + t.Refused + t.Unexpected + t.Errors
	return t
}

// Errors returns the first few errors and unexpected answers.
func (r *Recorder) Errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.errs)
}

// Report writes one line per route: requests, ok, refusals (by status),
// unexpected 4xx, errors (5xx and transport), and latency percentiles.
func (r *Recorder) Report(w io.Writer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	names := make([]string, 0, len(r.routes))
	for n := range r.routes {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(w, "%-44s %7s %7s %7s %5s %5s %8s %8s %8s %8s  %s\n",
		"route", "reqs", "ok", "refused", "4xx?", "err", "p50", "p90", "p99", "max", "refusals by status")
	for _, n := range names {
		s := r.routes[n]
		d := Distribution(s.lat)
		fmt.Fprintf(w, "%-44s %7d %7d %7d %5d %5d %8s %8s %8s %8s  %s\n",
			n, s.ok+s.refused+s.unexpected+s.errors, s.ok, s.refused, s.unexpected, s.errors,
			ms(d.P50), ms(d.P90), ms(d.P99), ms(d.Max), refusalText(s.byStatus))
	}
}

func refusalText(by map[int]int) string {
	var parts []string
	for st, n := range by {
		if st >= 400 {
			parts = append(parts, fmt.Sprintf("%d %s ×%d", st, http.StatusText(st), n))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// Dist is a latency distribution.
type Dist struct {
	N                  int
	P50, P90, P99, Max time.Duration
}

// Distribution sorts a copy of lat and reads its percentiles (nearest rank).
func Distribution(lat []time.Duration) Dist {
	if len(lat) == 0 {
		return Dist{}
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	at := func(p float64) time.Duration {
		i := int(p*float64(len(s))+0.999999) - 1
		return s[max(0, min(i, len(s)-1))]
	}
	return Dist{N: len(s), P50: at(0.50), P90: at(0.90), P99: at(0.99), Max: s[len(s)-1]}
}

func (d Dist) String() string {
	return fmt.Sprintf("n %d  p50 %s  p90 %s  p99 %s  max %s", d.N, ms(d.P50), ms(d.P90), ms(d.P99), ms(d.Max))
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000)
}
