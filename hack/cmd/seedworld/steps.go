package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"
)

// steps keeps each request kind's latencies since the last report, so the
// progress lines show which request grows slower as the world grows.
type steps struct {
	mu  sync.Mutex
	lat map[string][]time.Duration
}

func (s *steps) add(step string, d time.Duration) {
	s.mu.Lock()
	if s.lat == nil {
		s.lat = map[string][]time.Duration{}
	}
	s.lat[step] = append(s.lat[step], d)
	s.mu.Unlock()
}

// report prints each step's mean and p90 since the last report and starts
// over.
func (s *steps) report(w io.Writer) {
	s.mu.Lock()
	lat := s.lat
	s.lat = nil
	s.mu.Unlock()
	names := make([]string, 0, len(lat))
	for n := range lat {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		l := lat[n]
		sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
		var sum time.Duration
		for _, d := range l {
			sum += d
		}
		fmt.Fprintf(&b, "  %-28s n=%-6d mean %6.1fms  p90 %6.1fms\n", n, len(l),
			float64(sum.Microseconds())/float64(len(l))/1000, float64(l[len(l)*9/10].Microseconds())/1000)
	}
	fmt.Fprint(w, b.String())
}
