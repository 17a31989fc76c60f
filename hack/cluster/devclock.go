package cluster

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2/middleware/adaptor"

	"sharedworld.dev/hack/world"
	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/httpx"
)

// devClock is the cluster's one development clock (WORLD_DEV_CLOCK): the
// front answers POST /api/admin/clock as the runner does, keeps the offset
// in a file (a restart keeps the world's time) and moves every replica's
// clock through its admin port (PUT /devclock) before it answers. Under it the CronJobs
// run on demand only (Cluster.RunCronJob), as the runner's checks do
// (POST /api/admin/governance/check): a schedule firing in skipped time
// would move the world behind a test's back.
type devClock struct {
	c     *Cluster
	file  string
	token string
	clock *clock.Dev
	mu    sync.Mutex // one advance at a time; replicas start between them
	// offset is what replicas follow: keep runs under the clock's own
	// lock, so nothing it calls may read the clock.
	offset time.Duration
}

func newDevClock(file, token string, c *Cluster) (*devClock, error) {
	var offset time.Duration
	if b, err := os.ReadFile(file); err == nil {
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		offset = time.Duration(n)
	}
	return &devClock{c: c, file: file, token: token, clock: clock.NewDevAt(offset), offset: offset}, nil
}

// env is what a replica starting now needs to follow the clock.
func (d *devClock) env() []string {
	return []string{"WORLD_DEV_CLOCK=true", "WORLD_DEV_CLOCK_OFFSET=" + d.current().String()}
}

func (d *devClock) current() time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.offset
}

// Now is the world's time.
func (d *devClock) Now() time.Time { return time.Now().UTC().Add(d.current()) }

func (d *devClock) front(next http.Handler) http.Handler {
	app := httpx.NewApp(httpx.Options{Service: "cluster-devclock"})
	world.DevClockRoutes(app, d.clock, d.token, d.keep)
	clockRoute := adaptor.FiberApp(app)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/admin/clock" {
			clockRoute.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// keep stores the new offset, then moves every replica in the endpoints
// to it before the clock's answer. A replica starting meanwhile takes the
// offset once the advance is over (started); one that cannot be reached
// is logged, not waited for: it is crashing or hung, and a restart gives
// it the offset.
func (d *devClock) keep(ctx context.Context, offset time.Duration) error {
	if err := os.WriteFile(d.file, []byte(strconv.FormatInt(int64(offset), 10)+"\n"), 0o600); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.offset = offset
	for _, dep := range d.c.deployments {
		for _, r := range dep.snapshot() {
			if !r.Ready() {
				continue
			}
			if err := d.pushOffset(ctx, r, offset, 5*time.Second); err != nil {
				fmt.Fprintf(r.tail, "the development clock could not be moved: %v\n", err)
			}
		}
	}
	return nil
}

// started moves a replica that just started to the clock's offset, before
// it is put in the endpoints.
func (d *devClock) started(ctx context.Context, r *Replica) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.pushOffset(ctx, r, d.offset, 10*time.Second)
}

func (d *devClock) pushOffset(ctx context.Context, r *Replica, offset, within time.Duration) error {
	body := []byte(fmt.Sprintf(`{"offset_ns":%d}`, int64(offset)))
	deadline := time.Now().Add(within)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPut, "http://"+r.Addrs["admin"]+"/devclock", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := pushClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("%s answered %d", r.Name, resp.StatusCode)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("move %s's clock: %w", r.Name, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

var pushClient = &http.Client{Timeout: 5 * time.Second}
