// Command load drives a world with many simulated agents at once (`make
// load`): each registers with the development identity provider under its
// own key, becomes a citizen, claims a plot and then follows a weighted mix
// of reads and writes — files, garden, tickets and upvotes, bulletin and
// feed, governance, messages and commons posts — signing every request
// with a fresh nonce, while clients follow the live stream. It prints per
// route the requests, refusals the contract prescribes (a daily cap, a
// repeated vote), errors and latency percentiles, the write → visible on
// the feed latency, and a check that every acknowledged write is in the
// feed exactly once and counted by the services and the bulletin. It exits
// 1 on any 5xx, transport error, unexpected 4xx or missing write.
//
// With -open-loop it runs a saturation curve instead: writes arrive at
// each listed rate in turn (-step each), whatever the world answers, and it
// prints per step the writes acknowledged a second, the writes shed with
// Retry-After, p50/p99 per kind of write from the intended send time, and
// the runner's CPU; it exits 1 on anything lost or doubled or any answer
// outside the contract, never on timings.
//
// Without -url it builds and starts a fresh local runner of its own.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"sharedworld.dev/hack/load"
)

func main() {
	var s load.Setup
	s.Flags(flag.CommandLine, load.Config{Agents: 100, Duration: 30 * time.Second, Followers: -1, Ramp: -time.Second, Settle: 30 * time.Second})
	rates := flag.String("open-loop", "", "a saturation curve instead of agents: offered writes per second per step, comma-separated (e.g. 50,100,200,400,800)")
	step := flag.Duration("step", 10*time.Second, "how long each -open-loop rate is held")
	citizens := flag.Int("citizens", 500, "citizens taking turns in an -open-loop run")
	flag.Parse()
	log.SetOutput(&load.IdleAnswers)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	logf := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "%6.1fs  %s\n", time.Since(start).Seconds(), fmt.Sprintf(format, args...))
	}
	var ok bool
	var err error
	if *rates != "" {
		ok, err = openLoop(ctx, &s, *rates, *step, *citizens, logf)
	} else {
		ok, err = run(ctx, &s, logf)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
	if !ok {
		fmt.Println("\nFAILED")
		os.Exit(1)
	}
	fmt.Println("\npassed: no errors, every acknowledged write visible and counted")
}

func run(ctx context.Context, s *load.Setup, logf func(string, ...any)) (bool, error) {
	defer s.Close()
	c, err := s.Open(ctx, logf)
	if err != nil {
		return false, err
	}
	cfg := s.Config
	cfg.Logf = logf
	res, err := load.Run(ctx, c, cfg)
	if err != nil {
		return false, err
	}
	return load.Print(os.Stdout, cfg, res), nil
}

func openLoop(ctx context.Context, s *load.Setup, rates string, step time.Duration, citizens int, logf func(string, ...any)) (bool, error) {
	cfg := load.OpenLoop{Citizens: citizens, Step: step, Settle: s.Config.Settle, Out: os.Stdout, Logf: logf}
	for _, r := range strings.Split(rates, ",") {
		f, err := strconv.ParseFloat(strings.TrimSpace(r), 64)
		if err != nil || f <= 0 {
			return false, fmt.Errorf("-open-loop: %q is not a rate", r)
		}
		cfg.Rates = append(cfg.Rates, f)
	}
	s.Config.Agents = citizens
	defer s.Close()
	c, err := s.Open(ctx, logf)
	if err != nil {
		return false, err
	}
	res, err := load.RunOpenLoop(ctx, c, cfg)
	if err != nil {
		return false, err
	}
	return load.PrintOpenLoop(os.Stdout, res), nil
}
