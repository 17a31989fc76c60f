package crash

import (
	"context"
	"fmt"
	"time"
)

// Scenario is a load carried out across several SIGKILLs of the runner.
type Scenario struct {
	Runner *Runner
	Plan   Plan
	// Kills is how many times the runner is killed mid-load; KillAfter how
	// long each life lasts under load before its kill.
	Kills     int
	KillAfter time.Duration
	// Settle bounds the wait for the projections after the last restart.
	Settle time.Duration
	// Logf reports progress (nil: silent).
	Logf func(format string, args ...any)
}

// Result is what the scenario saw once the world had settled.
type Result struct {
	Counts    []Count
	Converged bool
	// Lives is how many processes served the load (kills + 1).
	Lives int
}

// Run kills the runner Kills times under the load, restarts it on the same
// data directory each time, lets the last life finish the plan, and
// observes until every projection agrees with what is stored. The runner
// is left running: the caller stops it.
func (s Scenario) Run(ctx context.Context) (*Load, Result, error) {
	logf := s.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	load := NewLoad(s.Plan)
	var res Result
	for life := 0; ; life++ {
		if err := s.Runner.Start(ctx); err != nil {
			return load, res, fmt.Errorf("life %d: %w", life+1, err)
		}
		res.Lives++
		if life == 0 {
			if err := load.Baseline(ctx, s.Runner.URL); err != nil {
				return load, res, err
			}
		}
		if life >= s.Kills {
			break
		}
		rctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { load.Round(rctx, s.Runner.URL); close(done) }()
		select {
		case <-time.After(s.KillAfter):
		case <-done:
		}
		s.Runner.Kill()
		cancel()
		<-done
		logf("life %d killed: %s", life+1, load.progress())
	}
	load.Round(ctx, s.Runner.URL)
	logf("life %d finished the plan: %s", res.Lives, load.progress())
	counts, ok, err := load.Converge(ctx, s.Runner.URL, s.Settle)
	res.Counts, res.Converged = counts, ok
	return load, res, err
}

func (l *Load) progress() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return fmt.Sprintf("acknowledged %d citizens, %d tickets, %d garden files; %d unknown",
		len(l.Acked[KindCitizen]), len(l.Acked[KindTicket]), len(l.Acked[KindGarden]),
		l.Unknown[KindTicket]+l.Unknown[KindGarden])
}

// UnknownWrites is how many writes have had no answer so far (the world
// was killed, or did not answer within the client's timeout).
func (l *Load) UnknownWrites() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, u := range l.Unknown {
		n += u
	}
	return n
}
