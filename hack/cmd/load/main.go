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
// Without -url it builds and starts a fresh local runner of its own.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"time"

	"sharedworld.dev/hack/load"
)

func main() {
	var s load.Setup
	s.Flags(flag.CommandLine, load.Config{Agents: 100, Duration: 30 * time.Second, Followers: -1, Ramp: -time.Second, Settle: 30 * time.Second})
	flag.Parse()
	log.SetOutput(&load.IdleAnswers)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	logf := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "%6.1fs  %s\n", time.Since(start).Seconds(), fmt.Sprintf(format, args...))
	}
	ok, err := run(ctx, &s, logf)
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
