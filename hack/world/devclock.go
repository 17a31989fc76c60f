package world

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/pkg/problem"
)

// devClockUnit is the runner's development clock as a service of its own:
// POST /api/admin/clock {"advance": "<Go duration>"} moves every service's
// time. Only the runner hosts it, and only when WORLD_DEV_CLOCK is on.
var devClockUnit = platform.Unit{
	Name: "devclock",
	Build: func(_ context.Context, env platform.Env) (platform.Service, error) {
		dc, _ := env.Deps.Clock.(*clock.Dev)
		return devClock{clock: dc, token: env.Deps.AmbassadorToken}, nil
	},
}

type devClock struct {
	clock *clock.Dev
	token string
}

func (devClock) Name() string                  { return "devclock" }
func (devClock) BodyLimits() map[string]int    { return nil }
func (devClock) Run(ctx context.Context) error { <-ctx.Done(); return nil }

func (d devClock) Routes(r fiber.Router) {
	r.Post("/api/admin/clock", auth.Ambassador(d.token), func(c *fiber.Ctx) error {
		var req struct {
			Advance *string `json:"advance"`
		}
		if err := httpx.Decode(c, &req); err != nil {
			return err
		}
		if req.Advance == nil {
			return httpx.OK(c, fiber.StatusOK, fiber.Map{"now": clock.Timestamp(d.clock.Now())})
		}
		dur, err := time.ParseDuration(*req.Advance)
		if err != nil || dur < 0 {
			return problem.Invalid("advance is not a non-negative Go duration.", `Send {"advance": "72h"} (units h, m, s).`)
		}
		return httpx.OK(c, fiber.StatusOK, fiber.Map{"now": clock.Timestamp(d.clock.Advance(dur))})
	})
}
