package load

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Config bounds a run.
type Config struct {
	// Agents is how many simulated agents act at once.
	Agents int
	// Duration bounds the run after the agents arrived; Actions bounds each
	// agent's actions (0: only the duration bounds them).
	Duration time.Duration
	Actions  int
	// Rate paces all agents together to this many actions per second (0:
	// each agent acts as soon as its last answer came, after Think).
	Rate  float64
	Think time.Duration
	// Followers is how many extra clients follow the live stream (one more
	// always follows it to time visibility).
	Followers int
	// Settle bounds the wait for the feed to show every acknowledged write.
	Settle time.Duration
	// Ramp spreads the agents' arrivals evenly over this long (0: all at once).
	Ramp time.Duration
	// Tag keeps the names of two runs on one world apart.
	Tag string
	// Logf reports progress (nil: silent).
	Logf func(format string, args ...any)
	// OnMix, when set, is called as the mix starts (after arrival) and
	// returns what to call when it ends (before the settle and the check),
	// so that a soak samples the mix alone.
	OnMix func() (end func())
}

// Result is what a run measured.
type Result struct {
	Rec       *Recorder
	Vis       *Visibility
	Ledger    *Ledger
	Arrived   int
	Actions   atomic.Int64
	Arrival   time.Duration // until every agent was a citizen with a plot
	Elapsed   time.Duration // the mix after arrival
	Streamed  atomic.Int64  // items the extra followers read
	Check     *Check
	base      baseline
	StreamErr error
}

// Run drives the world behind c with cfg's agents and checks the outcome.
func Run(ctx context.Context, c *Client, cfg Config) (*Result, error) {
	logf := cfg.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	res := &Result{Rec: c.Rec, Vis: NewVisibility(), Ledger: NewLedger()}
	m := &Mix{C: c, L: res.Ledger, V: res.Vis, Tag: cfg.Tag}
	base, err := counters(ctx, c)
	if err != nil {
		return nil, err
	}
	if base.garden, err = feedKeys(ctx, c, "garden"); err != nil {
		return nil, err
	}

	streams, stopStreams := context.WithCancel(ctx)
	defer stopStreams()
	ready := make(chan struct{})
	var streamWG sync.WaitGroup
	streamWG.Add(1 + cfg.Followers)
	go func() { defer streamWG.Done(); res.StreamErr = res.Vis.Watch(streams, c, ready) }()
	var dropped atomic.Int64
	for range cfg.Followers {
		go func() {
			defer streamWG.Done()
			_ = Follow(streams, c, func(Item, time.Time) { res.Streamed.Add(1) }, nil, &dropped)
		}()
	}
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		return nil, fmt.Errorf("the live feed did not open within 30 s")
	}

	var pace <-chan time.Time
	if cfg.Rate > 0 {
		t := time.NewTicker(time.Duration(float64(time.Second) / cfg.Rate))
		defer t.Stop()
		pace = t.C
	}
	start := time.Now()
	var arrived atomic.Int64
	var arrivedWG, wg sync.WaitGroup
	arrivedWG.Add(cfg.Agents)
	var deadline atomic.Int64
	mixStart := make(chan struct{})
	for i := range cfg.Agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(cfg.Ramp * time.Duration(i) / time.Duration(cfg.Agents))
			cz := m.Arrive(ctx, i)
			if cz != nil {
				arrived.Add(1) // before Done: the count is read once every agent is Done
			}
			arrivedWG.Done()
			if cz == nil {
				return
			}
			<-mixStart
			if pace == nil && cfg.Think > 0 {
				// Agents think on clocks of their own: spread over one
				// think time, they act at Agents/Think a second instead of
				// all at once every Think, a burst no population of
				// independent agents makes.
				time.Sleep(cfg.Think * time.Duration(i) / time.Duration(cfg.Agents))
			}
			for n := 0; cfg.Actions == 0 || n < cfg.Actions; n++ {
				if pace != nil {
					select {
					case <-pace:
					case <-ctx.Done():
					}
				} else if cfg.Think > 0 {
					time.Sleep(cfg.Think)
				}
				if ctx.Err() != nil || time.Now().UnixNano() > deadline.Load() {
					return
				}
				// Requests in flight are never cut off: every write sent gets
				// its answer, so the ledger knows what the world holds.
				m.Act(context.WithoutCancel(ctx), cz)
				res.Actions.Add(1)
			}
		}()
	}
	arrivedWG.Wait()
	res.Arrived, res.Arrival = int(arrived.Load()), time.Since(start)
	logf("%d of %d agents arrived in %.1fs; the mix runs for %v", res.Arrived, cfg.Agents, res.Arrival.Seconds(), cfg.Duration)
	mixAt := time.Now()
	deadline.Store(mixAt.Add(cfg.Duration).UnixNano())
	end := func() {}
	if cfg.OnMix != nil {
		end = cfg.OnMix()
	}
	close(mixStart)
	wg.Wait()
	end()
	res.Elapsed = time.Since(mixAt)

	settle := time.Now().Add(cfg.Settle)
	for res.Vis.Pending() > 0 && time.Now().Before(settle) && ctx.Err() == nil {
		time.Sleep(50 * time.Millisecond)
	}
	stopStreams()
	streamWG.Wait()
	logf("mix done: %d actions in %.1fs; %d writes not yet seen on the live feed", res.Actions.Load(), res.Elapsed.Seconds(), res.Vis.Pending())
	res.base = base
	res.Check, err = Verify(ctx, c, res.Ledger, base, cfg.Settle)
	return res, err
}
