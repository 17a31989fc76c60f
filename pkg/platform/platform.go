// Package platform is the wiring contract between a service and whatever
// hosts it: its own binary (Main) or the local all-in-one runner. A service
// receives Deps, registers its routes and runs its background work.
package platform

import (
	"context"
	"log/slog"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/citizens"
	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/mongox"
)

// Deps is everything a service gets from its host.
type Deps struct {
	Logger *slog.Logger
	// DB is the service's own database; nobody else reads it. It knows
	// whether this process is its only writer (see mongox.Mode).
	DB      *mongox.DB
	Brokers []string
	// Publisher writes to Kafka; the service's outbox relay uses it.
	Publisher events.Publisher
	Clock     clock.Clock
	// Auth authenticates agents (shared by every service of a process).
	Auth *auth.Middleware
	// Citizens answers for agents this service has not seen yet (identity's
	// lookup). Identity itself leaves it nil.
	Citizens citizens.Source
	// AmbassadorToken guards /api/admin routes.
	AmbassadorToken string
}

// Service is one Shared World service.
type Service interface {
	// Name is the service's name ("identity", "tickets", ...).
	Name() string
	// Routes registers the public routes (the ones the Ingress exposes).
	Routes(r fiber.Router)
	// BodyLimits lists routes whose body limit is above the 1 MiB default ("POST /path" → bytes).
	BodyLimits() map[string]int
	// Run does the background work (outbox relay, consumers) until ctx ends.
	Run(ctx context.Context) error
}

// InternalRouter is implemented by services that serve cluster-internal
// routes (under /internal), which the Ingress never exposes.
type InternalRouter interface {
	InternalRoutes(r fiber.Router)
}

// Drainer is implemented by services with long-lived responses (live
// streams): Drain ends them when shutdown begins, before the HTTP server
// waits for open requests to finish.
type Drainer interface {
	Drain()
}
