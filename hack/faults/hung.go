package faults

import (
	"context"
	"fmt"
	"time"

	"sharedworld.dev/hack/crash"
)

// answerSlack is what an answer may take beyond the request deadline: the
// handler's own work, the error body and the proxy, on a busy machine.
const answerSlack = time.Second

// databaseHung stops the database with SIGSTOP under load, so that it
// hangs (its connections stay open and nothing answers) rather than
// refuses, for longer than the services' request deadline, then resumes it
// with SIGCONT. While it hangs every request must still be answered within
// the deadline (plus a little), every failure a clean 503; after it
// resumes nothing acknowledged may be lost and nothing doubled.
func databaseHung(ctx context.Context, o Options, r *Report) error {
	env := []string{fmt.Sprintf("WORLD_REQUEST_DEADLINE=%v", o.RequestDeadline)}
	return onClusterEnv(ctx, o, r, "H", env, func(c *Cluster, load *crash.Load) error {
		wait := underLoad(ctx, c, load, o.Rate)
		sleep(ctx, 3*time.Second)
		bound := o.RequestDeadline + answerSlack
		unknown, acked := load.UnknownWrites(), c.Proxy.Count("POST 201")
		c.Proxy.Watch(bound)
		if err := c.DB.Pause(); err != nil {
			return err
		}
		o.Logf("database hung (SIGSTOP) for %v; request deadline %v", o.DBHang, o.RequestDeadline)
		sleep(ctx, o.DBHang)
		if err := c.DB.Resume(); err != nil {
			return err
		}
		sleep(ctx, 2*time.Second)
		seen := c.Proxy.Watched()
		r.notef("database hung for %v (request deadline %v): %s; %d writes acknowledged, %d writes answered 503 or not at all",
			o.DBHang, o.RequestDeadline, seen, c.Proxy.Count("POST 201")-acked, load.UnknownWrites()-unknown)
		if seen.Unavailable == 0 {
			r.failf("no request was refused while the database hung for %v: the load did not reach it", o.DBHang)
		}
		for _, over := range seen.Over {
			r.failf("answered later than the deadline and slack (%v): %s", bound, over)
		}
		wait()
		return settle(ctx, o, c, load, r)
	})
}
