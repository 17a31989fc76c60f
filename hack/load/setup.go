package load

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"sharedworld.dev/hack/crash"
)

// Setup is what `load` and `soak` share: the world to drive (a fresh local
// runner unless -url names one), and the mix's bounds.
type Setup struct {
	URL         string
	AllowRemote bool
	Keep        bool
	RunnerEnv   envList
	// RunnerBin, when set, is the runner to start instead of a fresh build
	// (another build, to measure two one after the other).
	RunnerBin string
	Config    Config

	Runner  *crash.Runner
	DataDir string
	dir     string
}

type envList []string

func (e *envList) String() string { return strings.Join(*e, " ") }
func (e *envList) Set(v string) error {
	if !strings.Contains(v, "=") {
		return fmt.Errorf("%q is not KEY=VALUE", v)
	}
	*e = append(*e, v)
	return nil
}

// Flags registers the shared flags with def's values as defaults.
func (s *Setup) Flags(fs *flag.FlagSet, def Config) {
	fs.StringVar(&s.URL, "url", "", "drive the world at this base URL (default: build and start a fresh local runner on a free port and a temporary data directory)")
	fs.BoolVar(&s.AllowRemote, "allow-remote", false, "allow a -url that is not a loopback address")
	fs.BoolVar(&s.Keep, "keep", false, "keep the fresh runner's data directory and log")
	fs.StringVar(&s.RunnerBin, "runner", "", "start this runner binary instead of building one (e.g. another commit's, to compare)")
	fs.Var(&s.RunnerEnv, "runner-env", "KEY=VALUE added to the fresh runner's environment (repeatable), e.g. its rate limits")
	fs.IntVar(&s.Config.Agents, "agents", def.Agents, "simulated agents, each with its own certificate")
	fs.DurationVar(&s.Config.Duration, "duration", def.Duration, "how long the mix runs once the agents have arrived")
	fs.DurationVar(&s.Config.Ramp, "ramp", def.Ramp, "spread the agents' arrivals over this long (-1s: 50 ms per agent, 20 arrivals a second)")
	fs.IntVar(&s.Config.Actions, "actions", def.Actions, "at most this many actions per agent (0: only -duration bounds them)")
	fs.Float64Var(&s.Config.Rate, "rate", def.Rate, "actions per second over all agents (0: each agent acts as soon as its last answer came, after -think)")
	fs.DurationVar(&s.Config.Think, "think", def.Think, "pause between an agent's actions when -rate is 0")
	fs.IntVar(&s.Config.Followers, "followers", def.Followers, "extra clients following the live stream (-1: one per ten agents)")
	fs.DurationVar(&s.Config.Settle, "settle", def.Settle, "how long the feed and the counters may take to show every acknowledged write")
	fs.StringVar(&s.Config.Tag, "tag", def.Tag, "name prefix, to run twice against one world")
}

// Open checks the URL, or builds and starts a fresh runner, and returns a
// client for it; Close stops what Open started.
func (s *Setup) Open(ctx context.Context, logf func(string, ...any)) (*Client, error) {
	if s.Config.Ramp < 0 {
		s.Config.Ramp = time.Duration(s.Config.Agents) * 50 * time.Millisecond
	}
	if s.Config.Followers < 0 {
		s.Config.Followers = s.Config.Agents / 10
	}
	if s.URL != "" {
		if !s.AllowRemote {
			if err := CheckLoopback(s.URL); err != nil {
				return nil, err
			}
		}
		return NewClient(s.URL, s.Config.Agents+s.Config.Followers), nil
	}
	dir, err := os.MkdirTemp("", "sharedworld-load-")
	if err != nil {
		return nil, err
	}
	s.dir, s.DataDir = dir, filepath.Join(dir, "data")
	bin := s.RunnerBin
	if bin == "" {
		if bin, err = crash.Build(ctx, dir); err != nil {
			return nil, err
		}
	}
	log, err := os.Create(filepath.Join(dir, "runner.log"))
	if err != nil {
		return nil, err
	}
	// Every request must be signed: the mix signs them all, so a refusal
	// would show a signing fault.
	env := append([]string{"WORLD_REQUIRE_REQUEST_SIGNATURES=true"}, s.RunnerEnv...)
	s.Runner = &crash.Runner{Bin: bin, DataDir: s.DataDir, Token: "load-ambassador-token-0123456789", Log: log, Env: env}
	start := time.Now()
	if err := s.Runner.Start(ctx); err != nil {
		return nil, err
	}
	logf("fresh runner on %s (pid %d, data %s), ready in %.1fs", s.Runner.URL, s.Runner.Pid(), s.DataDir, time.Since(start).Seconds())
	return NewClient(s.Runner.URL, s.Config.Agents+s.Config.Followers), nil
}

// Close stops the runner Open started and removes its directory unless -keep.
func (s *Setup) Close() {
	if s.Runner != nil {
		s.Runner.Stop()
		if c, ok := s.Runner.Log.(io.Closer); ok {
			c.Close()
		}
	}
	if s.dir != "" && !s.Keep {
		os.RemoveAll(s.dir)
	}
}

// Unsolicited counts the answers the world sent on idle keep-alive
// connections without a request (net/http logs each as "Unsolicited
// response received on idle HTTP channel"): a server that times out an idle
// connection with an answer instead of closing it. The commands install
// IdleAnswers with log.SetOutput; Print reports it.
type Unsolicited struct {
	N    atomic.Int64
	Last atomic.Value // string
}

func (u *Unsolicited) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("Unsolicited response")) {
		u.N.Add(1)
		u.Last.Store(string(p))
		return len(p), nil
	}
	return os.Stderr.Write(p)
}

// IdleAnswers counts the unsolicited answers of this process's clients.
var IdleAnswers Unsolicited

// Print writes the run's report and reports whether it passed: no error,
// no unexpected answer, every acknowledged write seen on the live feed and
// accounted for by the services and the bulletin.
func Print(w io.Writer, cfg Config, res *Result) bool {
	t := res.Rec.Totals()
	fmt.Fprintf(w, "\n%d agents (%d arrived in %.1fs), %d actions in %.1fs after arrival; %d requests, %.0f requests/s over the whole run\n",
		cfg.Agents, res.Arrived, res.Arrival.Seconds(), res.Actions.Load(), res.Elapsed.Seconds(), t.Requests,
		float64(t.Requests)/(res.Arrival+res.Elapsed).Seconds())
	fmt.Fprintf(w, "ok %d, refused by rule %d, unexpected 4xx %d, errors (5xx, transport) %d\n\n", t.OK, t.Refused, t.Unexpected, t.Errors)
	res.Rec.Report(w)
	fmt.Fprintf(w, "\nwrite → visible on the live feed: %s (%d writes never seen; %d stream reconnects; %d items read by %d extra followers)\n",
		res.Vis.Dist(), res.Vis.Pending(), res.Vis.Reconnects.Load(), res.Streamed.Load(), cfg.Followers)
	fmt.Fprintln(w, "\nevery acknowledged write, as the world shows it:")
	for _, l := range res.Check.Lines {
		fmt.Fprintln(w, "  "+l)
	}
	if n := IdleAnswers.N.Load(); n > 0 {
		last, _ := IdleAnswers.Last.Load().(string)
		fmt.Fprintf(w, "\n%d answers arrived on idle keep-alive connections without a request (not counted as errors), the last:\n  %s", n, last)
	}
	ok := t.Errors == 0 && t.Unexpected == 0 && res.Check.OK && res.Vis.Pending() == 0 && res.Arrived == cfg.Agents
	if errs := res.Rec.Errors(); len(errs) > 0 {
		fmt.Fprintln(w, "\nfirst errors:")
		for _, e := range errs {
			fmt.Fprintln(w, "  "+e)
		}
	}
	if res.Arrived != cfg.Agents {
		fmt.Fprintf(w, "%d agents could not become citizens\n", cfg.Agents-res.Arrived)
	}
	return ok
}
