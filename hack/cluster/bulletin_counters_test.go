//go:build cluster

package cluster

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"sharedworld.dev/pkg/client"
)

// commonsPlot is the garden's plot id (CONTRACT §4).
const commonsPlot = "plot_0_0"

// registrar registers citizens, each directory-visible and with a plot,
// through the front while the bulletin fails over, so that the run has
// counters of other services' state to compare (population, plots).
type registrar struct {
	front string
	done  int // citizens registered with their plot
}

// run registers n citizens, one after another, each until it is stored.
func (r *registrar) run(ctx context.Context, run string, n int) error {
	anon, err := client.New(r.front)
	if err != nil {
		return err
	}
	for i := range n {
		cert, err := once(ctx, func() (*client.DevCertificate, error) {
			return anon.DevIssueCertificate(ctx, fmt.Sprintf("%s-%03d", run, i), nil)
		})
		if err != nil {
			return fmt.Errorf("certificate %d: %w", i, err)
		}
		id, err := cert.Identity()
		if err != nil {
			return err
		}
		c, err := client.New(r.front, client.WithIdentity(id))
		if err != nil {
			return err
		}
		if _, err := once(ctx, func() (*client.RegisterResponse, error) {
			return c.Register(ctx, client.RegisterRequest{Name: fmt.Sprintf("Counter %d", i), DirectoryVisible: true})
		}); err != nil {
			return fmt.Errorf("register %d: %w", i, err)
		}
		if _, err := once(ctx, func() (*client.PlotResponse, error) {
			free, err := c.AvailablePlots(ctx, i, i, 1)
			if err != nil {
				return nil, err
			}
			if len(free.Plots) == 0 {
				return nil, errors.New("no free cell")
			}
			return c.ClaimPlot(ctx, free.Plots[0].X, free.Plots[0].Y)
		}); err != nil {
			return fmt.Errorf("claim %d: %w", i, err)
		}
		r.done++
	}
	return nil
}

// once runs a write until it is answered: a 5xx or a broken connection is
// tried again (the write may have landed: then the retry is the 409 the
// contract gives a repeated registration or claim, which counts as done).
func once[T any](ctx context.Context, write func() (T, error)) (T, error) {
	for {
		v, err := write()
		var e *client.Error
		switch {
		case err == nil:
			return v, nil
		case errors.As(err, &e) && e.Status == 409:
			return v, nil
		case errors.As(err, &e) && e.Status < 500:
			return v, err
		case ctx.Err() != nil:
			return v, ctx.Err()
		}
		pause(ctx, 100*time.Millisecond)
	}
}

// checkCounters waits (up to a deadline) for the bulletin's population and
// claimed plots to equal what identity and plots-storage store, which must
// be the registered citizens (the run makes no other).
func checkCounters(t *testing.T, front string, registered int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := client.New(front)
	if err != nil {
		t.Fatal(err)
	}
	var got string
	for ctx.Err() == nil {
		b, err1 := c.Bulletin(ctx)
		dir, err2 := c.DirectoryPage(ctx, client.DirectoryFilter{Limit: 1})
		plots, err3 := countPlots(ctx, c)
		if err := errors.Join(err1, err2, err3); err != nil {
			got = err.Error()
		} else {
			got = fmt.Sprintf("bulletin population %d, plots claimed %d; directory %d, plots %d; registered %d",
				b.World.Population, b.World.PlotsClaimed, dir.Total, plots, registered)
			if b.World.Population == dir.Total && b.World.PlotsClaimed == plots && dir.Total == registered && plots == registered {
				t.Log("counters:", got)
				return
			}
		}
		pause(ctx, 200*time.Millisecond) // polling, with the deadline above
	}
	t.Errorf("the bulletin's counters never matched the services' stores: %s", got)
}

// countPlots counts the claimed plots plots-storage lists; the commons
// (the garden's plot, the world's own) is listed but never claimed.
func countPlots(ctx context.Context, c *client.Client) (int, error) {
	n := 0
	for p, err := range c.Plots(ctx, client.PageOptions{Limit: 100}) {
		if err != nil {
			return 0, err
		}
		if p.PlotID != commonsPlot {
			n++
		}
	}
	return n, nil
}
