// Command attack replays attacks (garden abuse, rate limits, replay, credentials, bad input) against the world
// and prints, per category, the requests sent and the anomalies (any 5xx,
// any acceptance where a refusal is due); it exits 1 on any anomaly.
// Without -url it builds the local runner and starts the worlds it needs
// itself (one runner it restarts with SIGTERM and SIGKILL, two replicas on
// a shared database and broker): `make attack`.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"sharedworld.dev/hack/attack"
)

func main() {
	url := flag.String("url", "", "attack the running world at this base URL instead of starting worlds (restarts and replicas left out)")
	token := flag.String("token", os.Getenv("WORLD_AMBASSADOR_TOKEN"), "the ambassador token of the world at -url")
	limits := flag.String("limits", os.Getenv("WORLD_RATE_LIMITS"), "the WORLD_RATE_LIMITS of the world at -url (name=limit/window,...; empty: the defaults)")
	keep := flag.Bool("keep", false, "keep the work directory (runner logs and data) after the run")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	began := time.Now()
	logf := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "%5.1fs  %s\n", time.Since(began).Seconds(), fmt.Sprintf(format, args...))
	}
	var cats []*attack.Category
	var err error
	if *url != "" {
		cats, err = attack.Given(ctx, attack.Options{URL: *url, Token: *token, Limits: *limits, Logf: logf})
	} else {
		dir, derr := os.MkdirTemp("", "attack-")
		if derr != nil {
			fmt.Fprintln(os.Stderr, derr)
			os.Exit(2)
		}
		logFile, lerr := os.Create(filepath.Join(dir, "runners.log"))
		if lerr != nil {
			fmt.Fprintln(os.Stderr, lerr)
			os.Exit(2)
		}
		var log io.Writer = logFile
		cats, err = attack.Started(ctx, attack.Options{WorkDir: dir, Log: log, Logf: logf})
		logFile.Close()
		if *keep || err != nil {
			fmt.Fprintln(os.Stderr, "work directory (runner logs):", dir)
		} else {
			_ = os.RemoveAll(dir)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "attack:", err)
		os.Exit(2)
	}
	n := attack.Print(os.Stdout, cats)
	fmt.Printf("%d anomalies in %.0f s\n", n, time.Since(began).Seconds())
	if n > 0 {
		os.Exit(1)
	}
}
