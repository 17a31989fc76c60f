//go:build !cluster

// The local runner only: kill -9 of its one process (hack/crash); the
// chart's replicas are killed by hack/cluster's tests and make faults.

package world_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"sharedworld.dev/hack/crash"
)

// SIGKILL of the runner in the middle of a load, twice, and a restart on
// the same data directory each time: every acknowledged registration,
// ticket and garden planting is stored, and the bulletin's counters and
// feed show each stored one exactly once. The runner runs as a child
// process, so the kill is a real crash: nothing of it gets to clean up.
func TestKillNineLosesNoEventAndDoublesNone(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	bin, err := crash.Build(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	logFile, err := os.Create(filepath.Join(dir, "runner.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	runner := &crash.Runner{Bin: bin, DataDir: filepath.Join(dir, "data"), Token: "crash-token-0123456789", Log: logFile}
	defer runner.Stop()

	// 40 citizens at once, as in the report of the loss: each registers,
	// files 5 tickets (the daily limit) and plants 5 garden files.
	s := crash.Scenario{
		Runner: runner, Plan: crash.Plan{Citizens: 40, Tickets: 5, Gardens: 5},
		Kills: 2, KillAfter: 800 * time.Millisecond, Settle: 15 * time.Second, Logf: t.Logf,
	}
	load, res, err := s.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Counts {
		t.Log(c)
	}
	if !res.Converged {
		t.Fatalf("after %d lives the projections never agreed with what the services store (runner log: %s)", res.Lives, logFile.Name())
	}
	// The load must have written something in each life for the kills to
	// test anything: the plan is far from done after 0.8 s.
	if n := len(load.Acked[crash.KindTicket]); n < 100 {
		t.Fatalf("only %d tickets acknowledged: the load did not run", n)
	}
}
