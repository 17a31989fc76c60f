package faults

import (
	"fmt"
	"strings"
	"time"

	"sharedworld.dev/hack/crash"
)

// Report is what one scenario saw.
type Report struct {
	Name string
	// Counts are acknowledged / stored / projected per kind once settled.
	Counts []crash.Count
	// Answers summarises the services' answers (scenarios behind the proxy).
	Answers string
	Notes   []string
	// Failures say what broke the promise; none means the scenario passed.
	Failures []string
	Took     time.Duration
}

// OK reports whether the scenario passed.
func (r *Report) OK() bool { return len(r.Failures) == 0 }

func (r *Report) notef(format string, args ...any) {
	r.Notes = append(r.Notes, fmt.Sprintf(format, args...))
}
func (r *Report) failf(format string, args ...any) {
	r.Failures = append(r.Failures, fmt.Sprintf(format, args...))
}

// judge fails the report on every count that lost, missed or doubled a
// write, and on writes stored beyond what was acknowledged or left in
// doubt: a write refused (4xx, 503) must have left nothing behind.
func (r *Report) judge(load *crash.Load, counts []crash.Count, converged bool) {
	r.Counts = counts
	for _, c := range counts {
		if !c.OK() {
			r.failf("%s: lost %d, not in feed %d, feed without write %d, feed doubled %d, bulletin %d for %d stored",
				c.Kind, len(c.Lost), len(c.Unprojected), len(c.Foreign), c.FeedDup, c.Counter, c.Stored)
		}
		allowed := c.Acked + c.Unknown
		if c.Kind == crash.KindCitizen {
			allowed += len(load.Conflicts)
		}
		if c.Stored > allowed {
			r.failf("%s: %d stored, but only %d acknowledged or unanswered: a refused write left something behind", c.Kind, c.Stored, allowed)
		}
	}
	if !converged && len(r.Failures) == 0 {
		r.failf("the projections did not settle")
	}
}

func (r *Report) String() string {
	var b strings.Builder
	verdict := "PASS"
	if !r.OK() {
		verdict = "FAIL"
	}
	fmt.Fprintf(&b, "== %s: %s (%.0f s)\n", r.Name, verdict, r.Took.Seconds())
	for _, c := range r.Counts {
		fmt.Fprintf(&b, "   %s\n", c)
	}
	if r.Answers != "" {
		fmt.Fprintf(&b, "   answers: %s\n", r.Answers)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "   %s\n", n)
	}
	for _, f := range r.Failures {
		fmt.Fprintf(&b, "   FAILED: %s\n", f)
	}
	return b.String()
}
