package platform

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/httpx"
)

// errDraining is the readiness of a host that began to drain.
var errDraining = errors.New("the replica is shutting down")

// checks are the host's own readiness checks, beside the backend's: not
// draining, and (when the host authenticates requests) a key of the
// identity provider held, without which every certificate is refused.
func (h *Host) checks() []httpx.Check {
	cs := []httpx.Check{{Name: "draining", Probe: func(context.Context) error {
		if h.draining.Load() {
			return errDraining
		}
		return nil
	}}}
	if h.auth != nil {
		cs = append(cs, httpx.Check{Name: "identity_provider", Probe: h.auth.Verifier.Ready})
	}
	return cs
}

// Drain is the first step of a graceful stop, before Stop: the host turns
// not ready (/readyz answers 503 on both ports) and keeps serving every
// request for delay (or until ctx ends), each answer with Connection:
// close. A replica told to stop is still an endpoint of its Service until
// the endpoints controllers and every proxy catch up, which takes seconds;
// requests routed to it meanwhile must be answered, and the clients'
// keep-alive connections moved to other replicas before it closes them.
// The images have no shell for a preStop sleep, so the wait is here.
func (h *Host) Drain(ctx context.Context, delay time.Duration) {
	h.beginDrain()
	if delay <= 0 {
		return
	}
	h.log.Info("draining: not ready, still serving", slog.Duration("delay", delay))
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// beginDrain turns the host not ready and every answer the last of its
// connection; idempotent.
func (h *Host) beginDrain() {
	if h.draining.Swap(true) {
		return
	}
	for _, app := range []*fiber.App{h.app, h.admin} {
		if app != nil {
			httpx.Drain(app)
		}
	}
}
