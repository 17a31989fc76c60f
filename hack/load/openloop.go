package load

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// OpenLoop is a saturation run: writes arrive at a fixed rate whatever the
// world answers (an open loop: a slow answer does not slow the arrivals, as
// it does for agents that wait for their last answer), stepping the rate
// up; each write's latency counts from when it was meant to be sent.
type OpenLoop struct {
	// Citizens take turns sending the writes; each arrives first (a
	// citizen with a plot, one garden file of its own and a first
	// message sent).
	Citizens int
	// Rates are the steps' offered writes per second, each held for Step.
	Rates []float64
	Step  time.Duration
	// Settle bounds the wait for the feed and the services to show every
	// acknowledged write at the end.
	Settle time.Duration
	// Out receives the table; Logf progress (nil: silent).
	Out  io.Writer
	Logf func(format string, args ...any)
}

// writeKind is one kind of write of the open-loop mix, with its weight:
// files on one's own plot 50 %, tending one's garden file 25 %, direct
// messages 20 %, tickets 5 %.
type writeKind struct {
	name   string
	weight int
	route  string
	do     func(m *Mix, ctx context.Context, c *citizen)
}

var openMix = []writeKind{
	{"plot file", 50, "POST /api/world/storage/write", (*Mix).writeFile},
	{"garden", 25, "POST /api/world/storage/write (garden)", (*Mix).tend},
	{"message", 20, "POST /api/world/message", (*Mix).message},
	{"ticket", 5, "POST /api/world/tickets", (*Mix).fileTicket},
}

// Step is what one rate step measured.
type Step struct {
	Offered float64
	// Sent counts the writes sent (an arrival whose citizen has nothing
	// to do, a message with no one else to send to, sends none).
	Sent     int
	Acked    int
	Achieved float64 // acknowledged writes per second of the step
	// Shed are writes refused at once with Retry-After (503 or 429 by a
	// rate limit or the daily cap); Unsure those answered 503 after they
	// started, which may be stored (the checks allow for them); Failed any
	// other 5xx or no answer.
	Shed, Unsure, Failed int
	Kinds                map[string]Dist
	// CPU is the runner's CPU time over the step (0: unknown) and Wall the
	// step's length until its last answer.
	CPU, Wall time.Duration
}

// OpenResult is a saturation run's outcome.
type OpenResult struct {
	Steps  []Step
	Ledger *Ledger
	Check  *Check
	// Unexpected counts answers that break the contract: a 5xx other than
	// 503 with Retry-After, an unexpected 4xx, or no answer.
	Unexpected int
	Errors     []string
}

// OK: nothing lost or doubled, and no answer outside the contract.
func (r *OpenResult) OK() bool { return r.Check != nil && r.Check.OK && r.Unexpected == 0 }

// RunOpenLoop runs the steps against the world behind c and checks that
// every acknowledged write is stored once.
func RunOpenLoop(ctx context.Context, c *Client, cfg OpenLoop) (*OpenResult, error) {
	logf := cfg.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	res := &OpenResult{Ledger: NewLedger()}
	m := &Mix{C: c, L: res.Ledger, V: NewVisibility(), Tag: "o" + strconv.FormatInt(time.Now().Unix()%100000, 36)}
	base, err := counters(ctx, c)
	if err != nil {
		return nil, err
	}
	if base.garden, err = feedKeys(ctx, c, "garden"); err != nil {
		return nil, err
	}
	free, err := arriveAll(ctx, m, cfg.Citizens)
	if err != nil {
		return nil, err
	}
	logf("%d citizens arrived, each with a plot, a garden file and most with a first message sent", len(free))
	for _, rate := range cfg.Rates {
		st := runStep(ctx, c, m, free, rate, cfg.Step, res)
		res.Steps = append(res.Steps, st)
		logf("%.0f writes/s offered: %.0f acknowledged a second, %d shed, %d failed", rate, st.Achieved, st.Shed, st.Failed)
	}
	res.Check, err = Verify(ctx, c, res.Ledger, base, cfg.Settle)
	return res, err
}

// arriveAll makes n citizens, 4 at a time (within any door's bound of
// writes in flight), each with a garden file and a first message sent to
// one who arrived before it (the first to arrive, and one that draws
// itself, sends none), and returns them as a pool
// of idle senders. An arrival the world shed anyway (an agent left without
// a plot) is tried again as another agent after the door's Retry-After.
func arriveAll(ctx context.Context, m *Mix, n int) (chan *citizen, error) {
	free := make(chan *citizen, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(4, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				for try := 0; try < 10 && ctx.Err() == nil; try++ {
					if cz := m.Arrive(ctx, i+try*n); cz != nil && cz.plot != "" {
						m.plant(ctx, cz)
						// A sender's first message under its key pays the
						// key's derivation (CONTRACT: Argon2id), tens of
						// milliseconds once per sender: paid here, the
						// steps measure a world whose senders wrote before.
						m.message(ctx, cz)
						free <- cz
						break
					}
					time.Sleep(time.Second) // the door's Retry-After
				}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	if len(free) < n {
		return nil, fmt.Errorf("%d of %d citizens arrived with a plot", len(free), n)
	}
	return free, nil
}

// runStep sends rate writes a second for d, each at its intended time, by
// an idle citizen (a citizen sends one write at a time), and waits for
// every answer.
func runStep(ctx context.Context, c *Client, m *Mix, free chan *citizen, rate float64, d time.Duration, res *OpenResult) Step {
	st := Step{Offered: rate, Kinds: map[string]Dist{}}
	var mu sync.Mutex
	lat := map[string][]time.Duration{}
	acked := 0
	kindOf := map[string]string{}
	for _, k := range openMix {
		kindOf[k.route] = k.name
	}
	step := *c
	step.Observe = func(route string, a Answer) {
		kind, ok := kindOf[route]
		if !ok {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		st.Sent++
		switch {
		case a.Err == nil && a.Status/100 == 2:
			acked++
		case a.OutcomeUnknown() && a.RetryAfter != "":
			st.Unsure++
		case a.Err == nil && (a.Status == http.StatusServiceUnavailable || a.Status == http.StatusTooManyRequests) && a.RetryAfter != "":
			st.Shed++
		default:
			st.Failed++
			res.Unexpected++
			if len(res.Errors) < 10 {
				res.Errors = append(res.Errors, fmt.Sprintf("%s: %d %v %s", kind, a.Status, a.Err, str(a.Body, "message")))
			}
		}
		if a.Err == nil {
			lat[kind] = append(lat[kind], a.Latency)
		}
	}
	sm := *m
	sm.C = &step
	cpu0, cpuOK := runnerCPU(ctx, c)
	start := time.Now()
	n := int(rate * d.Seconds())
	rng := rand.New(rand.NewPCG(uint64(rate), 29))
	var wg sync.WaitGroup
	for i := range n {
		at := start.Add(time.Duration(float64(i) / rate * float64(time.Second)))
		time.Sleep(time.Until(at)) // the generator's pace, not a wait for the world
		kind := pick(rng)
		wg.Add(1)
		go func() {
			defer wg.Done()
			cz := <-free // waiting for an idle citizen counts: latency runs from at
			defer func() { free <- cz }()
			kind.do(&sm, Intended(ctx, at), cz)
		}()
	}
	wg.Wait()
	st.Wall = time.Since(start)
	if cpu1, ok := runnerCPU(ctx, c); ok && cpuOK {
		st.CPU = cpu1 - cpu0
	}
	mu.Lock()
	defer mu.Unlock()
	st.Acked = acked
	st.Achieved = float64(acked) / max(d.Seconds(), st.Wall.Seconds())
	for k, l := range lat {
		st.Kinds[k] = Distribution(l)
	}
	return st
}

func pick(rng *rand.Rand) writeKind {
	total := 0
	for _, k := range openMix {
		total += k.weight
	}
	r := rng.IntN(total)
	for _, k := range openMix {
		if r < k.weight {
			return k
		}
		r -= k.weight
	}
	return openMix[0]
}

// runnerCPU reads the world's process_cpu_seconds_total from its /metrics.
func runnerCPU(ctx context.Context, c *Client) (time.Duration, bool) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.Base+"/metrics", nil)
	if err != nil {
		return 0, false
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "process_cpu_seconds_total "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return time.Duration(f * float64(time.Second)), err == nil
		}
	}
	return 0, false
}

// PrintOpenLoop writes the saturation curve, one line per step, and the
// check; it reports whether the run passed (nothing lost or doubled, no
// answer outside the contract). Timings are reported, never judged.
func PrintOpenLoop(w io.Writer, res *OpenResult) bool {
	fmt.Fprintf(w, "\n%8s %8s %8s %6s %6s %6s %6s %7s", "offered", "sent", "achieved", "shed", "unsure", "failed", "cpu", "cpu/ack")
	for _, k := range openMix {
		fmt.Fprintf(w, "  %-19s", k.name+" p50/p99")
	}
	fmt.Fprintln(w)
	for _, s := range res.Steps {
		cores, per := "?", "?"
		if s.CPU > 0 {
			cores = fmt.Sprintf("%.2f", s.CPU.Seconds()/s.Wall.Seconds())
			if s.Acked > 0 {
				per = fmt.Sprintf("%.1fms", s.CPU.Seconds()*1000/float64(s.Acked))
			}
		}
		fmt.Fprintf(w, "%8.0f %8d %8.0f %6d %6d %6d %6s %7s", s.Offered, s.Sent, s.Achieved, s.Shed, s.Unsure, s.Failed, cores, per)
		for _, k := range openMix {
			d := s.Kinds[k.name]
			fmt.Fprintf(w, "  %-19s", ms(d.P50)+"/"+ms(d.P99))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "\n(unsure: answered 503 after the write started, so it may be stored; cpu: the runner's cores over the step; cpu/ack: its CPU per acknowledged write; latencies from the intended send time)")
	if res.Check != nil {
		fmt.Fprintln(w, "\nevery acknowledged write, as the world shows it:")
		for _, l := range res.Check.Lines {
			fmt.Fprintln(w, "  "+l)
		}
	}
	for _, e := range res.Errors {
		fmt.Fprintln(w, "  "+e)
	}
	return res.OK()
}
