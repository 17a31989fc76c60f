package faults

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// Latencies are the answers the services gave while a scenario watched
// (Proxy.Watch), timed from when the proxy passed the request on (after
// its pacing) to the answer's headers.
type Latencies struct {
	Answers, Unavailable int
	// Slowest of any answer and of the 503s, with the slowest's route.
	Slowest, Slowest503 time.Duration
	SlowestRoute        string
	// Over lists the answers slower than the bound Watch was given.
	Over  []string
	bound time.Duration
}

func (l *Latencies) String() string {
	return fmt.Sprintf("%d answers, %d of them 503; slowest %v (%s), slowest 503 %v",
		l.Answers, l.Unavailable, l.Slowest.Round(time.Millisecond), l.SlowestRoute, l.Slowest503.Round(time.Millisecond))
}

type sentAt struct{}

// timed marks r with the moment it is passed on.
func timed(r *http.Request) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), sentAt{}, time.Now()))
}

// Watch starts timing every answer; answers slower than bound are listed.
func (p *Proxy) Watch(bound time.Duration) {
	p.note(func() { p.watch = &Latencies{bound: bound} })
}

// Watched stops timing and returns what was seen since Watch.
func (p *Proxy) Watched() *Latencies {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.watch
	p.watch = nil
	if l == nil {
		l = &Latencies{}
	}
	return l
}

// time records one answer of status to r while a scenario watches
// (p.mu held).
func (p *Proxy) time(r *http.Request, status int) {
	l := p.watch
	start, ok := r.Context().Value(sentAt{}).(time.Time)
	if l == nil || !ok {
		return
	}
	took := time.Since(start)
	l.Answers++
	if status == http.StatusServiceUnavailable {
		l.Unavailable++
		l.Slowest503 = max(l.Slowest503, took)
	}
	if took > l.Slowest {
		l.Slowest, l.SlowestRoute = took, fmt.Sprintf("%s %s → %d", r.Method, r.URL.Path, status)
	}
	if took > l.bound && len(l.Over) < 10 {
		l.Over = append(l.Over, fmt.Sprintf("%s %s → %d after %v", r.Method, r.URL.Path, status, took.Round(time.Millisecond)))
	}
}
