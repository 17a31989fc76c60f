package faults

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"sharedworld.dev/hack/services"
)

// Proxy is the scenario's Ingress: one base URL routed to each service
// binary by the service table's prefixes (the longest match wins, as the
// chart's Ingress routes), so that the crash test's load drives separate
// binaries as it drives the runner. It counts every answer the services
// gave by status, and paces writes so that a load lasts through a fault.
type Proxy struct {
	routes map[string]*httputil.ReverseProxy

	mu      sync.Mutex
	answers map[string]int // "POST 201", "GET 503 retry-after body", ...
	bad     []string       // 5xx answers the contract forbids, with their route
	gateway int            // requests whose service did not answer at all

	pace     time.Duration // between two writes (0: unpaced)
	nextSend time.Time

	watch *Latencies // answers timed while a scenario watches (nil: none)
}

// NewProxy routes to upstream[service name] (base URLs).
func NewProxy(upstream map[string]string) (*Proxy, error) {
	p := &Proxy{routes: map[string]*httputil.ReverseProxy{}, answers: map[string]int{}}
	for _, e := range services.Table {
		u, err := url.Parse(upstream[e.Name()])
		if err != nil || upstream[e.Name()] == "" {
			return nil, fmt.Errorf("no address for %s", e.Name())
		}
		rp := httputil.NewSingleHostReverseProxy(u)
		rp.ModifyResponse = p.inspect
		rp.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) {
			if r.Context().Err() != nil {
				return // the client gave up waiting (counted by the load as unanswered)
			}
			p.note(func() { p.gateway++; p.time(r, http.StatusBadGateway) })
			// As an Ingress with no ready endpoint would.
			http.Error(w, "upstream "+e.Name()+" unreachable", http.StatusBadGateway)
		}
		p.routes[e.Name()] = rp
	}
	return p, nil
}

// Pace lets at most perSecond writes (POSTs) through each second; 0 lifts the limit.
func (p *Proxy) Pace(perSecond int) {
	p.note(func() {
		p.pace = 0
		if perSecond > 0 {
			p.pace = time.Second / time.Duration(perSecond)
		}
	})
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e, ok := services.Owner(r.URL.Path)
	if !ok {
		http.NotFound(w, r)
		return
	}
	if r.Method == http.MethodPost {
		p.wait(r)
	}
	p.routes[e.Name()].ServeHTTP(w, timed(r))
}

func (p *Proxy) wait(r *http.Request) {
	p.mu.Lock()
	if p.pace == 0 {
		p.mu.Unlock()
		return
	}
	now := time.Now()
	slot := now
	if p.nextSend.After(now) {
		slot = p.nextSend
	}
	p.nextSend = slot.Add(p.pace)
	d := slot.Sub(now)
	p.mu.Unlock()
	select {
	case <-time.After(d):
	case <-r.Context().Done():
	}
}

// inspect counts an answer; a 5xx is judged against the contract: only a
// 503 that carries the error body and Retry-After is a clean refusal.
func (p *Proxy) inspect(resp *http.Response) error {
	key := fmt.Sprintf("%s %d", resp.Request.Method, resp.StatusCode)
	if resp.StatusCode < 500 {
		p.note(func() { p.answers[key]++; p.time(resp.Request, resp.StatusCode) })
		return nil
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return err
	}
	retry := resp.Header.Get("Retry-After") != ""
	hasBody := bytes.Contains(body, []byte(`"ok":false`)) && bytes.Contains(body, []byte(`"error"`))
	if retry {
		key += " retry-after"
	}
	if hasBody {
		key += " body"
	}
	p.note(func() {
		p.answers[key]++
		p.time(resp.Request, resp.StatusCode)
		if resp.StatusCode != http.StatusServiceUnavailable || !retry || !hasBody {
			p.bad = append(p.bad, fmt.Sprintf("%s %s → %d retry-after=%v %.120s", resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, retry, body))
		}
	})
	return nil
}

// Answers summarises the answers counted so far, most frequent first.
func (p *Proxy) Answers() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	keys := make([]string, 0, len(p.answers))
	for k := range p.answers {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return p.answers[b] - p.answers[a] })
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s ×%d", k, p.answers[k]))
	}
	if p.gateway > 0 {
		parts = append(parts, fmt.Sprintf("service unreachable ×%d", p.gateway))
	}
	return strings.Join(parts, ", ")
}

// Bad returns the 5xx answers other than a 503 with the error body and Retry-After.
func (p *Proxy) Bad() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.bad)
}

// Count503 is how many clean 503s the services gave.
func (p *Proxy) Count503() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for k, v := range p.answers {
		if strings.Contains(k, " 503 ") {
			n += v
		}
	}
	return n
}

func (p *Proxy) note(f func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f()
}

// Count is how many answers were counted under key ("POST 201").
func (p *Proxy) Count(key string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.answers[key]
}
