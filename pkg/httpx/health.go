package httpx

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/valyala/fasthttp/fasthttpadaptor"

	"sharedworld.dev/pkg/metrics"
)

// Check reports whether one dependency is reachable.
type Check struct {
	Name  string
	Probe func(ctx context.Context) error
}

// MountHealth adds /healthz (alive) and /readyz (every check passes; a
// 503 names each failed check with its error).
func MountHealth(r fiber.Router, checks ...Check) {
	r.Get("/healthz", func(c *fiber.Ctx) error { return OK(c, fiber.StatusOK, fiber.Map{"status": "alive"}) })
	r.Get("/readyz", func(c *fiber.Ctx) error {
		ctx, cancel := context.WithTimeout(c.UserContext(), 2*time.Second)
		defer cancel()
		failed := fiber.Map{}
		for _, ch := range checks {
			if err := ch.Probe(ctx); err != nil {
				failed[ch.Name] = err.Error()
			}
		}
		if len(failed) > 0 {
			return JSON(c, fiber.StatusServiceUnavailable, fiber.Map{"ok": false, "error": "unavailable",
				"message": "Not ready: a check failed.", "hint": "Each entry of failed names a check and why it failed: a dependency not reachable (mongodb, kafka), no identity provider key loaded (identity_provider), or the replica shutting down (draining).", "failed": failed})
		}
		return OK(c, fiber.StatusOK, fiber.Map{"status": "ready"})
	})
}

// MountMetrics serves the Prometheus registry at /metrics.
func MountMetrics(r fiber.Router) {
	h := fasthttpadaptor.NewFastHTTPHandler(promhttp.HandlerFor(metrics.Registry, promhttp.HandlerOpts{}))
	r.Get("/metrics", func(c *fiber.Ctx) error {
		h(c.Context())
		return nil
	})
}
