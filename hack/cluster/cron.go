package cluster

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/robfig/cron/v3"
	batchv1 "k8s.io/api/batch/v1"

	"sharedworld.dev/hack/proc"
)

// cronJob runs a rendered CronJob's pod on its schedule (on demand only
// under the development clock), never two runs at once
// (concurrencyPolicy Forbid), each run retried up to the Job's backoffLimit.
type cronJob struct {
	c         *Cluster
	spec      batchv1.CronJob
	schedule  cron.Schedule
	container Container

	mu sync.Mutex
	// run is the run going on (nil: none); its done closes when it ends.
	run *cronRun
	// Runs and Failures count finished runs.
	Runs, Failures int
}

type cronRun struct {
	done chan struct{}
	err  error
}

var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

func (c *Cluster) startCronJobs(life context.Context) error {
	for _, spec := range c.Manifests.CronJobs {
		sched, err := cronParser.Parse(spec.Spec.Schedule)
		if err != nil {
			return fmt.Errorf("CronJob %s: schedule %q: %w", spec.Name, spec.Spec.Schedule, err)
		}
		if tz := spec.Spec.TimeZone; tz != nil && *tz != "" {
			loc, err := time.LoadLocation(*tz)
			if err != nil {
				return fmt.Errorf("CronJob %s: time zone %q: %w", spec.Name, *tz, err)
			}
			if s, ok := sched.(*cron.SpecSchedule); ok {
				s.Location = loc
			}
		}
		ct, err := c.Manifests.container(spec.Spec.JobTemplate.Spec.Template.Spec)
		if err != nil {
			return fmt.Errorf("CronJob %s: %w", spec.Name, err)
		}
		cj := &cronJob{c: c, spec: spec, schedule: sched, container: ct}
		c.crons = append(c.crons, cj)
		if c.clock == nil {
			go cj.loop(life)
		}
	}
	return nil
}

func (c *Cluster) now() time.Time {
	if c.clock != nil {
		return c.clock.Now()
	}
	return time.Now().UTC()
}

// loop waits, in wall time, for the schedule's next time in world time.
func (cj *cronJob) loop(ctx context.Context) {
	for {
		now := cj.c.now()
		next := cj.schedule.Next(now)
		select {
		case <-ctx.Done():
			return
		case <-time.After(min(next.Sub(now), time.Minute)):
		}
		if !cj.c.now().Before(next) {
			cj.start(ctx)
		}
	}
}

// start runs the job in the background unless a run is going on, and
// returns the run going on.
func (cj *cronJob) start(ctx context.Context) *cronRun {
	cj.mu.Lock()
	defer cj.mu.Unlock()
	if cj.run != nil {
		return cj.run
	}
	run := &cronRun{done: make(chan struct{})}
	cj.run = run
	go func() {
		run.err = cj.runJob(ctx)
		cj.mu.Lock()
		cj.run = nil
		cj.Runs++
		if run.err != nil {
			cj.Failures++
			fmt.Fprintf(cj.c.opts.Log, "[%s] failed: %v\n", cj.spec.Name, run.err)
		}
		cj.mu.Unlock()
		close(run.done)
	}()
	return run
}

// wait waits for the run going on, if any.
func (cj *cronJob) wait() {
	cj.mu.Lock()
	run := cj.run
	cj.mu.Unlock()
	if run != nil {
		<-run.done
	}
}

// runJob is one Job: its pod run to completion, retried up to backoffLimit.
func (cj *cronJob) runJob(ctx context.Context) error {
	attempts := 7 // the Job default's backoffLimit 6, plus the first
	if b := cj.spec.Spec.JobTemplate.Spec.BackoffLimit; b != nil {
		attempts = int(*b) + 1
	}
	var err error
	for range attempts {
		tail := newTailLog(cj.spec.Name, cj.c.opts.Log, 40)
		extra := []string{}
		if cj.c.clock != nil {
			extra = cj.c.clock.env()
		}
		p := &proc.Proc{Name: cj.spec.Name, Bin: filepath.Join(cj.c.opts.BinDir, cj.container.Binary), Args: cj.container.Args,
			Env: podEnv(cj.container, nil, cj.c.hosts, extra), Log: tail, Isolated: true}
		err = p.Run(ctx)
		if err == nil {
			return nil
		}
		err = fmt.Errorf("%w; its last log lines:\n%s", err, tail.String())
	}
	return err
}

// RunCronJob runs a CronJob now (kubectl create job --from=cronjob/...)
// and waits for it; a run already going on (Forbid) is the one waited for.
func (c *Cluster) RunCronJob(ctx context.Context, name string) error {
	for _, cj := range c.crons {
		if cj.spec.Name == name || cj.spec.Name == Release+"-shared-world-"+name {
			run := cj.start(c.life)
			select {
			case <-run.done:
				return run.err
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	return fmt.Errorf("no CronJob %q", name)
}

// Now is the world's time: the development clock's when it is on.
func (c *Cluster) Now() time.Time { return c.now() }
