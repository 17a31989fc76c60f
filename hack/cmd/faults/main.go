// Command faults runs the fault scenarios (`make faults`): the runner
// killed with SIGKILL mid-load several times; the broker unreachable under
// load, then killed and restarted; the database unreachable under load;
// every event delivered twice; the bulletin (which consumes every topic)
// killed mid-batch several times; the database hung (SIGSTOP) under load,
// every request still answered within the request deadline. Scenarios 2-6 run the service binaries
// as separate processes against the embedded broker and database, each in
// a process of its own, behind a proxy routing by the service table. Each
// prints acknowledged / stored / projected counts per kind; the command
// exits 1 when any scenario lost, doubled or left behind a write, or
// answered a 5xx other than a 503 with the error body and Retry-After.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"sharedworld.dev/hack/faults"
)

func main() {
	short := flag.Bool("short", false, "the CI size: smaller loads and shorter outages (about 3 minutes)")
	only := flag.String("only", "", "comma-separated scenario numbers to run (default: all)")
	keep := flag.Bool("keep", false, "keep the work directory (data and logs)")
	o := faults.Options{Token: "faults-token-0123456789"}
	flag.IntVar(&o.Citizens, "citizens", 150, "citizens of each scenario's load; each registers, files 5 tickets and plants 1 garden file")
	flag.IntVar(&o.Rate, "rate", 60, "writes per second let through while a fault lasts")
	flag.IntVar(&o.RunnerKills, "runner-kills", 5, "SIGKILLs of the runner (scenario 1)")
	flag.DurationVar(&o.RunnerEvery, "runner-every", 3*time.Second, "life of the runner under load before each kill")
	flag.DurationVar(&o.BrokerOutage, "broker-outage", 30*time.Second, "how long the broker is paused (then killed for a third of it)")
	flag.DurationVar(&o.DBOutage, "db-outage", 10*time.Second, "how long the database's connections are cut (scenario 3)")
	flag.DurationVar(&o.DBHang, "db-hang", 15*time.Second, "how long the database is stopped with SIGSTOP (scenario 6); longer than -request-deadline")
	flag.DurationVar(&o.RequestDeadline, "request-deadline", 5*time.Second, "the services' WORLD_REQUEST_DEADLINE in scenario 6: every request is answered within it (plus 1 s)")
	flag.IntVar(&o.ConsumerKills, "consumer-kills", 4, "SIGKILLs of the bulletin (scenario 5)")
	flag.DurationVar(&o.ConsumerEvery, "consumer-every", 3*time.Second, "time under load between two kills of the bulletin")
	flag.DurationVar(&o.Settle, "settle", 120*time.Second, "how long the projections may take to agree after a fault")
	flag.Parse()
	if *short {
		o.Citizens, o.RunnerKills, o.BrokerOutage, o.DBOutage, o.DBHang, o.ConsumerKills = 80, 3, 10*time.Second, 5*time.Second, 12*time.Second, 3
	}
	chosen := map[int]bool{}
	for _, s := range strings.Split(*only, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
			chosen[n] = true
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o, chosen, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "faults:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o faults.Options, only map[int]bool, keep bool) error {
	dir, err := os.MkdirTemp("", "faults-")
	if err != nil {
		return err
	}
	if !keep {
		defer os.RemoveAll(dir)
	}
	start := time.Now()
	o.Logf = func(format string, args ...any) {
		fmt.Printf("%6.1fs  %s\n", time.Since(start).Seconds(), fmt.Sprintf(format, args...))
	}
	o.BinDir, o.WorkDir = filepath.Join(dir, "bin"), dir
	o.Logf("building the service binaries, the runner, the standalone broker and database")
	if err := faults.Build(ctx, o.BinDir); err != nil {
		return err
	}
	logFile, err := os.Create(filepath.Join(dir, "children.log"))
	if err != nil {
		return err
	}
	defer logFile.Close()
	o.Log = logFile

	reports := faults.RunAll(ctx, o, only)
	fmt.Printf("\n%d scenarios in %.0f s (logs: %s)\n", len(reports), time.Since(start).Seconds(), logFile.Name())
	failed := 0
	for _, r := range reports {
		fmt.Print(r)
		if !r.OK() {
			failed++
		}
	}
	if failed > 0 {
		if !keep {
			fmt.Println("(run with -keep to keep the logs)")
		}
		return fmt.Errorf("%d of %d scenarios failed", failed, len(reports))
	}
	fmt.Println("every scenario: nothing acknowledged lost, nothing doubled, no refused write left behind, no 5xx but clean 503s")
	return nil
}
