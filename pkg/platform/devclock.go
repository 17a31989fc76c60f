package platform

import (
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/metrics"
	"sharedworld.dev/pkg/problem"
)

// devClockOffset is how far this binary's development clock runs ahead,
// so that a dashboard of a local cluster shows which replica is behind.
var devClockOffset = prometheus.NewGauge(prometheus.GaugeOpts{
	Name: "sharedworld_dev_clock_offset_seconds",
	Help: "How far the development clock runs ahead of the wall clock (only with WORLD_DEV_CLOCK).",
})

func init() { metrics.Registry.MustRegister(devClockOffset) }

// mountDevClock serves the development clock of a binary on its admin
// port: GET /devclock tells the offset, PUT /devclock {"offset_ns": n}
// moves the clock forward to n (never back). The admin port is reachable
// only from inside the cluster, and the routes exist only with
// WORLD_DEV_CLOCK, which production never sets.
func mountDevClock(r fiber.Router, d *clock.Dev) {
	devClockOffset.Set(d.Offset().Seconds())
	answer := func(c *fiber.Ctx) error {
		return httpx.OK(c, fiber.StatusOK, fiber.Map{"offset_ns": int64(d.Offset()), "now": clock.Timestamp(d.Now())})
	}
	r.Get("/devclock", answer)
	r.Put("/devclock", func(c *fiber.Ctx) error {
		var req struct {
			OffsetNS *int64 `json:"offset_ns"`
		}
		if err := httpx.Decode(c, &req); err != nil {
			return err
		}
		if req.OffsetNS == nil || *req.OffsetNS < 0 || time.Duration(*req.OffsetNS) > clock.MaxDevOffset {
			return problem.Invalid("offset_ns must be a number of nanoseconds between 0 and ten years.", `Send {"offset_ns": 259200000000000} for 72 h.`)
		}
		d.Follow(time.Duration(*req.OffsetNS))
		devClockOffset.Set(d.Offset().Seconds())
		return answer(c)
	})
}
