package world

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/problem"
)

// mountDevClock serves POST /api/admin/clock {"advance": "<Go duration>"}.
func mountDevClock(app fiber.Router, dc *clock.Dev, token string) {
	app.Post("/api/admin/clock", auth.Ambassador(token), func(c *fiber.Ctx) error {
		var req struct {
			Advance *string `json:"advance"`
		}
		if err := httpx.Decode(c, &req); err != nil {
			return err
		}
		if req.Advance == nil {
			return httpx.OK(c, fiber.StatusOK, fiber.Map{"now": clock.Timestamp(dc.Now())})
		}
		d, err := time.ParseDuration(*req.Advance)
		if err != nil || d < 0 {
			return problem.Invalid("advance is not a non-negative Go duration.", `Send {"advance": "72h"} (units h, m, s).`)
		}
		return httpx.OK(c, fiber.StatusOK, fiber.Map{"now": clock.Timestamp(dc.Advance(d))})
	})
}
