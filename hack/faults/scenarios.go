// Package faults runs the world's fault scenarios (`make faults`): each
// drives writes over HTTP with the crash test's load (hack/crash) while one
// part of the world fails — the runner killed, the broker or the database
// unreachable, every event delivered twice, a consumer killed mid-batch —
// and then checks what was acknowledged against what is stored and what
// the projections show: nothing lost, nothing doubled.
package faults

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"sharedworld.dev/hack/crash"
)

// Options bound the scenarios.
type Options struct {
	BinDir, WorkDir string
	Token           string
	// Log receives every child's output.
	Log io.Writer
	// Logf reports progress.
	Logf func(format string, args ...any)

	// Citizens of each scenario's load (each registers, files 5 tickets
	// and plants a garden file), and the writes per second the proxy lets
	// through, so that the load outlasts the fault.
	Citizens, Rate int
	// RunnerKills SIGKILLs of the runner, one every RunnerEvery.
	RunnerKills int
	RunnerEvery time.Duration
	// BrokerOutage and DBOutage: how long each stays unreachable.
	BrokerOutage, DBOutage time.Duration
	// DBHang is how long the database stays stopped (SIGSTOP) in the hung
	// database scenario, and RequestDeadline the services' request
	// deadline there (WORLD_REQUEST_DEADLINE), within which every request
	// must be answered.
	DBHang, RequestDeadline time.Duration
	// ConsumerKills SIGKILLs of the bulletin, one every ConsumerEvery.
	ConsumerKills int
	ConsumerEvery time.Duration
	// Settle bounds the wait for the projections after a fault.
	Settle time.Duration
}

func (o Options) plan(tag string) crash.Plan {
	return crash.Plan{Citizens: o.Citizens, Tickets: 5, Gardens: 1, Workers: 16, Tag: tag}
}

// Scenario is one fault scenario.
type Scenario struct {
	Name string
	Run  func(ctx context.Context, o Options, r *Report) error
}

// All are the scenarios in the order `make faults` runs them.
var All = []Scenario{
	{"runner killed with SIGKILL mid-load, restarted, several times", runnerKills},
	{"broker unreachable under load (SIGSTOP), then killed and restarted", brokerOutage},
	{"database unreachable under load (connections cut and refused)", databaseOutage},
	{"every event delivered twice", duplicateDelivery},
	{"consumer (bulletin) killed with SIGKILL mid-batch, restarted, several times", consumerKills},
	{"database hung under load (SIGSTOP, then SIGCONT): every answer within the request deadline", databaseHung},
}

// RunAll runs every scenario named in only (all when empty), each on a
// fresh world, and returns their reports.
func RunAll(ctx context.Context, o Options, only map[int]bool) []*Report {
	var out []*Report
	for i, s := range All {
		if len(only) > 0 && !only[i+1] {
			continue
		}
		r := &Report{Name: fmt.Sprintf("%d. %s", i+1, s.Name)}
		start := time.Now()
		o.Logf("%s", r.Name)
		if err := s.Run(ctx, o, r); err != nil {
			r.failf("%v", err)
		}
		r.Took = time.Since(start)
		out = append(out, r)
		o.Logf("%s: passed %v", r.Name, r.OK())
	}
	return out
}

func runnerKills(ctx context.Context, o Options, r *Report) error {
	runner := &crash.Runner{Bin: filepath.Join(o.BinDir, "world"), DataDir: filepath.Join(o.WorkDir, "runner"), Token: o.Token}
	if f, ok := o.Log.(*os.File); ok {
		runner.Log = f
	}
	defer runner.Stop()
	s := crash.Scenario{Runner: runner, Plan: o.plan("R"), Kills: o.RunnerKills, KillAfter: o.RunnerEvery, Settle: o.Settle, Logf: o.Logf}
	s.Plan.Workers = 40
	load, res, err := s.Run(ctx)
	if err != nil {
		return err
	}
	r.notef("%d lives, %d kills with SIGKILL", res.Lives, o.RunnerKills)
	r.judge(load, res.Counts, res.Converged)
	return nil
}

// onCluster starts a fresh cluster and a load's baseline on it, runs f,
// and stops the cluster.
func onCluster(ctx context.Context, o Options, r *Report, name string, f func(c *Cluster, load *crash.Load) error) error {
	return onClusterEnv(ctx, o, r, name, nil, f)
}

// onClusterEnv is onCluster with env added to every service's environment.
func onClusterEnv(ctx context.Context, o Options, r *Report, name string, env []string, f func(c *Cluster, load *crash.Load) error) error {
	c, err := StartCluster(ctx, ClusterOptions{BinDir: o.BinDir, DataDir: filepath.Join(o.WorkDir, name), Token: o.Token, Log: o.Log, Env: env})
	if err != nil {
		return err
	}
	defer c.Stop()
	load := crash.NewLoad(o.plan(name))
	if err := load.Baseline(ctx, c.URL); err != nil {
		return err
	}
	err = f(c, load)
	r.Answers = c.Proxy.Answers()
	for _, b := range c.Proxy.Bad() {
		r.failf("a 5xx other than a clean 503: %s", b)
		if len(r.Failures) > 5 {
			break
		}
	}
	return err
}

// underLoad starts the load's round in the background; wait returns when it has sent everything.
func underLoad(ctx context.Context, c *Cluster, load *crash.Load, rate int) (wait func()) {
	c.Proxy.Pace(rate)
	done := make(chan struct{})
	go func() {
		defer close(done)
		// A round ends early when a worker's request goes unanswered (the
		// crash test reads that as the world killed): start the next one.
		deadline := time.Now().Add(10 * time.Minute)
		for !load.Done() && ctx.Err() == nil && time.Now().Before(deadline) {
			load.Round(ctx, c.URL)
		}
	}()
	return func() { <-done; c.Proxy.Pace(0) }
}

// settle lets the consumers catch up and then judges what the world shows.
func settle(ctx context.Context, o Options, c *Cluster, load *crash.Load, r *Report) error {
	if err := WaitCaughtUp(ctx, c.Brokers, o.Settle); err != nil {
		r.failf("%v", err)
	}
	counts, ok, err := load.Converge(ctx, c.URL, o.Settle)
	if err != nil {
		return err
	}
	if !ok && onlyGardenAhead(counts) {
		// A garden write refused after its quota hold was recorded (the
		// database failed between the two) leaves the hold in the garden's
		// count until it lapses and the garden's next change settles it:
		// wait for that, tend one planted file, and look again.
		g := counts[len(counts)-1]
		r.notef("the bulletin's garden count was %d above the files stored: quota holds of refused writes; tending a file once they lapsed (%v)", g.Counter-g.Stored, holdLife)
		sleep(ctx, holdLife+5*time.Second)
		if err := tendOne(ctx, c.URL, load); err != nil {
			return err
		}
		if counts, ok, err = load.Converge(ctx, c.URL, o.Settle); err != nil {
			return err
		}
	}
	r.judge(load, counts, ok)
	return nil
}

// holdLife is plots-storage's quota hold life (its domain.HoldLife).
const holdLife = time.Minute

// onlyGardenAhead: every count agrees but the garden counter, which is above the files stored.
func onlyGardenAhead(counts []crash.Count) bool {
	for _, c := range counts {
		g := c
		g.Counter = g.Stored
		if !g.OK() || (c.Kind != crash.KindGarden && !c.OK()) || c.Counter < c.Stored {
			return false
		}
	}
	return true
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

func brokerOutage(ctx context.Context, o Options, r *Report) error {
	return onCluster(ctx, o, r, "B", func(c *Cluster, load *crash.Load) error {
		wait := underLoad(ctx, c, load, o.Rate)
		sleep(ctx, 3*time.Second)
		before := c.Proxy.Count("POST 201")
		if err := c.Broker.Pause(); err != nil {
			return err
		}
		o.Logf("broker paused for %v", o.BrokerOutage)
		sleep(ctx, o.BrokerOutage)
		during := c.Proxy.Count("POST 201") - before
		if err := c.Broker.Resume(); err != nil {
			return err
		}
		r.notef("writes acknowledged while the broker was paused for %v: %d", o.BrokerOutage, during)
		if during == 0 {
			r.failf("no write was acknowledged while the broker was unreachable (the outbox should take them)")
		}
		sleep(ctx, 3*time.Second)
		c.Broker.Kill()
		o.Logf("broker killed with SIGKILL; down for %v", o.BrokerOutage/3)
		before = c.Proxy.Count("POST 201")
		sleep(ctx, o.BrokerOutage/3)
		if err := c.Broker.Start(ctx); err != nil {
			return err
		}
		r.notef("writes acknowledged while the broker was killed for %v: %d (restarted on the same log and port)", o.BrokerOutage/3, c.Proxy.Count("POST 201")-before)
		wait()
		return settle(ctx, o, c, load, r)
	})
}

func databaseOutage(ctx context.Context, o Options, r *Report) error {
	return onCluster(ctx, o, r, "D", func(c *Cluster, load *crash.Load) error {
		wait := underLoad(ctx, c, load, o.Rate)
		// A database that hangs instead (SIGSTOP) is scenario 6, databaseHung.
		for _, phase := range []struct {
			name       string
			fail, mend func() error
		}{
			{"cut (connections closed and refused)", func() error { c.DBGate.Cut(); return nil }, func() error { c.DBGate.Mend(); return nil }},
		} {
			sleep(ctx, 3*time.Second)
			before, acked := c.Proxy.Count503(), c.Proxy.Count("POST 201")
			unknown := load.UnknownWrites()
			if err := phase.fail(); err != nil {
				return err
			}
			o.Logf("database %s for %v", phase.name, o.DBOutage)
			sleep(ctx, o.DBOutage)
			if err := phase.mend(); err != nil {
				return err
			}
			sleep(ctx, 2*time.Second)
			r.notef("database %s for %v: %d clean 503s, %d writes acknowledged, %d writes unanswered", phase.name, o.DBOutage,
				c.Proxy.Count503()-before, c.Proxy.Count("POST 201")-acked, load.UnknownWrites()-unknown)
		}
		wait()
		return settle(ctx, o, c, load, r)
	})
}

func duplicateDelivery(ctx context.Context, o Options, r *Report) error {
	return onCluster(ctx, o, r, "U", func(c *Cluster, load *crash.Load) error {
		underLoad(ctx, c, load, 0)()
		if err := settle(ctx, o, c, load, r); err != nil || !r.OK() {
			return err
		}
		first := r.Counts
		n, err := Redeliver(ctx, c.Brokers)
		if err != nil {
			return err
		}
		lag, err := Lag(ctx, c.Brokers)
		if err != nil {
			return err
		}
		r.notef("produced every one of the %d events again (the consumer groups were then %d behind)", n, lag)
		if err := settle(ctx, o, c, load, r); err != nil {
			return err
		}
		for i, now := range r.Counts {
			if now.Counter != first[i].Counter || now.Feed != first[i].Feed {
				r.failf("%s: bulletin %d → %d, feed %d → %d after the duplicates", now.Kind, first[i].Counter, now.Counter, first[i].Feed, now.Feed)
			}
		}
		return nil
	})
}

func consumerKills(ctx context.Context, o Options, r *Report) error {
	return onCluster(ctx, o, r, "C", func(c *Cluster, load *crash.Load) error {
		wait := underLoad(ctx, c, load, o.Rate)
		bulletin := c.Services["bulletin"]
		for i := range o.ConsumerKills {
			sleep(ctx, o.ConsumerEvery)
			lag, _ := Lag(ctx, c.Brokers)
			bulletin.Kill()
			if err := bulletin.Start(ctx); err != nil {
				return fmt.Errorf("restart %d of the bulletin: %w", i+1, err)
			}
			o.Logf("bulletin killed with SIGKILL and restarted (%d of %d; the consumers were %d events behind)", i+1, o.ConsumerKills, lag)
		}
		wait()
		r.notef("%d SIGKILLs of the bulletin while events flowed", o.ConsumerKills)
		return settle(ctx, o, c, load, r)
	})
}
