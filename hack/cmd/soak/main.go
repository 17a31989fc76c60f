// Command soak runs the load mix at a steady rate for a long time (`make
// soak`, 10 minutes by default) against a fresh local runner and samples
// the runner every few seconds: RSS, goroutines (go_goroutines of its
// /metrics), open file descriptors and the embedded database's size on
// disk. It fails when memory or goroutines grow without bound, by this
// rule: split the samples into thirds by time; the last third's maximum
// may exceed the middle third's by at most 10 % plus a small absolute
// slack (-rss-slack, -goroutine-slack); the first third is warm-up. It
// also fails on anything `load` fails on. It reports the runner's idle RSS
// and, when `make build` has put them in -bin-dir, each service binary's
// idle RSS, each started alone against an embedded FerretDB and broker.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"sharedworld.dev/hack/load"
)

func main() {
	var s load.Setup
	s.Flags(flag.CommandLine, load.Config{Agents: 50, Duration: 10 * time.Minute, Rate: 25, Followers: -1, Ramp: -time.Second, Settle: 60 * time.Second})
	every := flag.Duration("sample", 0, "sampling interval (0: 5 s, or a 30th of -duration when that is shorter)")
	ratio := flag.Float64("growth", 0.10, "how much the last third's max may exceed the middle third's, as a fraction")
	rssSlack := flag.Int64("rss-slack", 16<<20, "absolute slack on RSS growth, bytes")
	gSlack := flag.Int("goroutine-slack", 20, "absolute slack on goroutine growth")
	binDir := flag.String("bin-dir", "bin", "where `make build` put the service binaries (their idle RSS is measured when present)")
	idle := flag.Duration("idle", 5*time.Second, "how long a process sits idle before its RSS is read")
	pid := flag.Int("pid", 0, "with -url: the world's process id to sample")
	dataDir := flag.String("data-dir", "", "with -url: the world's data directory (its database size is sampled)")
	flag.Parse()
	log.SetOutput(&load.IdleAnswers)
	if *every == 0 {
		*every = min(5*time.Second, max(time.Second, s.Config.Duration/30))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	logf := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "%6.1fs  %s\n", time.Since(start).Seconds(), fmt.Sprintf(format, args...))
	}
	o := opts{every: *every, growth: *ratio, rssSlack: float64(*rssSlack), gSlack: float64(*gSlack), binDir: *binDir, idle: *idle, pid: *pid, dataDir: *dataDir}
	ok, err := run(ctx, &s, o, logf)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
	if !ok {
		fmt.Println("\nFAILED")
		os.Exit(1)
	}
	fmt.Println("\npassed: no errors, every acknowledged write visible and counted, memory and goroutines bounded")
}

type opts struct {
	every            time.Duration
	growth           float64
	rssSlack, gSlack float64
	binDir           string
	idle             time.Duration
	pid              int
	dataDir          string
}

func run(ctx context.Context, s *load.Setup, o opts, logf func(string, ...any)) (bool, error) {
	defer s.Close()
	c, err := s.Open(ctx, logf)
	if err != nil {
		return false, err
	}
	probe := load.Probe{Pid: o.pid, MetricsURL: c.Base + "/metrics", DBDir: o.dataDir, HTTP: c.HTTP}
	if s.Runner != nil {
		probe.Pid, probe.DBDir = s.Runner.Pid(), filepath.Join(s.DataDir, "mongo")
	}
	if probe.Pid == 0 {
		return false, fmt.Errorf("with -url, -pid names the process to sample")
	}
	time.Sleep(o.idle) // the idle RSS is what is measured
	idleSample, err := probe.Read(ctx)
	if err != nil {
		return false, err
	}
	logf("runner idle after start: RSS %s, %d goroutines, %d fds, database %s", load.MiB(float64(idleSample.RSS)), idleSample.Goroutines, idleSample.FDs, load.MiB(float64(idleSample.DBBytes)))

	var series []load.Sample
	cfg := s.Config
	cfg.Logf = logf
	cfg.OnMix = func() func() {
		stopSampling := sample(ctx, probe, o.every, logf)
		return func() { series = stopSampling() }
	}
	res, err := load.Run(ctx, c, cfg)
	if err != nil {
		return false, err
	}
	ok := load.Print(os.Stdout, cfg, res)

	fmt.Printf("\nsamples every %v (t, RSS, goroutines, fds, database of which write-ahead logs):\n", o.every)
	var rss, gor, fds, db []float64
	for _, x := range series {
		fmt.Printf("  %7.1fs  %9s  %6d  %5d  %9s  %9s\n", x.At.Seconds(), load.MiB(float64(x.RSS)), x.Goroutines, x.FDs, load.MiB(float64(x.DBBytes)), load.MiB(float64(x.WALBytes)))
		rss, gor = append(rss, float64(x.RSS)), append(gor, float64(x.Goroutines))
		fds, db = append(fds, float64(x.FDs)), append(db, float64(x.DBBytes))
	}
	fmt.Printf("\nrule: the last third's max ≤ the middle third's max × %.2f + slack (RSS %s, goroutines %.0f); fds and database size are reported, not judged\n",
		1+o.growth, load.MiB(o.rssSlack), o.gSlack)
	for _, j := range []struct {
		name   string
		unit   func(float64) string
		series []float64
		rule   load.Growth
		judged bool
	}{
		{"RSS", load.MiB, rss, load.Growth{Ratio: o.growth, Slack: o.rssSlack}, true},
		{"goroutines", load.Count, gor, load.Growth{Ratio: o.growth, Slack: o.gSlack}, true},
		{"fds", load.Count, fds, load.Growth{Ratio: o.growth, Slack: 16}, false},
		{"database", load.MiB, db, load.Growth{Ratio: o.growth, Slack: 1 << 20}, false},
	} {
		line, pass := j.rule.Judge(j.name, j.unit, j.series)
		if !j.judged {
			line = strings.Replace(line, "GROWING", "growing (not judged)", 1)
		}
		fmt.Println("  " + line)
		ok = ok && (pass || !j.judged)
	}

	fmt.Printf("\nidle RSS (after %v idle):\n  %-14s %9s  (whole world in one process: embedded FerretDB, broker and every service)\n", o.idle, "runner", load.MiB(float64(idleSample.RSS)))
	idles, err := load.IdleServices(ctx, o.binDir, o.idle)
	if err != nil {
		fmt.Printf("  service binaries not measured: %v\n", err)
		return ok, nil
	}
	for _, r := range idles {
		if r.Err != nil {
			fmt.Printf("  %-14s not measured: %v\n", r.Name, r.Err)
			continue
		}
		fmt.Printf("  %-14s %9s  (alone; its FerretDB and broker run in the soak process)\n", r.Name, load.MiB(float64(r.RSS)))
	}
	return ok, nil
}

// sample reads probe every interval until the returned function is called,
// which returns the samples.
func sample(ctx context.Context, probe load.Probe, every time.Duration, logf func(string, ...any)) func() []load.Sample {
	var mu sync.Mutex
	var out []load.Sample
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	start := time.Now()
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			x, err := probe.Read(ctx)
			if err != nil {
				logf("sample: %v", err)
				continue
			}
			x.At = time.Since(start)
			mu.Lock()
			out = append(out, x)
			mu.Unlock()
		}
	}()
	return func() []load.Sample {
		close(done)
		wg.Wait()
		return out
	}
}
