// Package attack replays attacks (garden abuse, rate limits, replay, credentials, bad input) against a
// running world (garden filling, rate limits, signature replay after a
// restart and across two replicas, credentials edge cases, bad input on
// every documented route) and counts, per category, the requests sent and
// the anomalies: any 5xx, any transport failure where an answer was due,
// and any acceptance where the contract asks for a refusal. `make attack`
// runs it (hack/cmd/attack).
package attack

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
)

// Anomaly is one answer the contract does not allow.
type Anomaly struct {
	Method, Path string
	Status       int // 0: no answer (transport error)
	Body         string
	Why          string
}

// Category counts the requests of one kind of attack and what went wrong.
type Category struct {
	Name string

	// Tolerate429 counts a 429 (a world with its default rate limits
	// throttling the walk) as a refusal to note, not an anomaly.
	Tolerate429 bool

	mu        sync.Mutex
	throttled int
	sent      int
	anomalies []Anomaly
	notes     []string
}

// Sent is the number of requests sent so far.
func (c *Category) Sent() int { c.mu.Lock(); defer c.mu.Unlock(); return c.sent }

// Anomalies are the anomalies found so far.
func (c *Category) Anomalies() []Anomaly {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Anomaly(nil), c.anomalies...)
}

func (c *Category) count(n int) { c.mu.Lock(); c.sent += n; c.mu.Unlock() }

// Flag records an anomaly about reply r.
func (c *Category) Flag(r Reply, why string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.anomalies = append(c.anomalies, Anomaly{Method: r.Method, Path: r.Path, Status: r.Status, Body: excerpt(r), Why: fmt.Sprintf(why, args...)})
}

// Note records something the run could not check (a skipped step).
func (c *Category) Note(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.notes = append(c.notes, fmt.Sprintf(format, args...))
}

// Want flags r unless its status is one of statuses; a 5xx or no answer is
// always an anomaly. It reports whether r was as wanted.
func (c *Category) Want(r Reply, why string, statuses ...int) bool {
	if c.Tolerate429 && r.Status == 429 && r.Err == nil {
		c.mu.Lock()
		c.throttled++
		c.mu.Unlock()
		return false
	}
	for _, s := range statuses {
		if r.Status == s && r.Err == nil {
			return true
		}
	}
	c.Flag(r, "%s: want %v", why, statuses)
	return false
}

// Refused flags r unless it is a 4xx with the contract's error body
// ({ok:false, error, message, hint}); code, when given, must be its error.
func (c *Category) Refused(r Reply, why string, status int, code string) bool {
	if !c.Want(r, why, status) {
		return false
	}
	return c.ErrorBody(r, why, code)
}

// ErrorBody flags r unless it carries the contract's error body.
func (c *Category) ErrorBody(r Reply, why, code string) bool {
	if r.JSON == nil || r.JSON["ok"] != false || r.Str("error") == "" || r.Str("message") == "" || r.Str("hint") == "" {
		c.Flag(r, "%s: the answer lacks the contract's error body {ok:false,error,message,hint}", why)
		return false
	}
	if code != "" && r.Str("error") != code {
		c.Flag(r, "%s: want error %q", why, code)
		return false
	}
	return true
}

func excerpt(r Reply) string {
	if r.Err != nil {
		return r.Err.Error()
	}
	s := strings.Join(strings.Fields(string(r.Body)), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// Print writes the table (category, requests sent, anomalies), then every
// anomaly and note, and returns the total number of anomalies.
func Print(w io.Writer, cats []*Category) int {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "category\trequests\tanomalies\t")
	total, sent := 0, 0
	for _, c := range cats {
		n := len(c.Anomalies())
		total += n
		sent += c.Sent()
		fmt.Fprintf(tw, "%s\t%d\t%d\t\n", c.Name, c.Sent(), n)
	}
	fmt.Fprintf(tw, "total\t%d\t%d\t\n", sent, total)
	_ = tw.Flush()
	for _, c := range cats {
		as := c.Anomalies()
		sort.SliceStable(as, func(i, j int) bool { return as[i].Path < as[j].Path })
		for _, a := range as {
			fmt.Fprintf(w, "ANOMALY %s: %s %s → %d: %s\n    %s\n", c.Name, a.Method, a.Path, a.Status, a.Why, a.Body)
		}
		c.mu.Lock()
		if c.throttled > 0 {
			fmt.Fprintf(w, "note %s: %d answers were 429 (rate limited) and were not checked further\n", c.Name, c.throttled)
		}
		for _, n := range c.notes {
			fmt.Fprintf(w, "note %s: %s\n", c.Name, n)
		}
		c.mu.Unlock()
	}
	return total
}
