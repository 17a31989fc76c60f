// Package platform is the one composition root of every Shared World
// process. A service declares itself as a Unit (name, how to build it, its
// one-shot jobs); a Host serves one unit (a service binary, through Main) or
// many (the local runner): it builds the dependencies, the auth middleware,
// the in-process or remote citizen lookup and presence, serves the routes
// with health and metrics, runs the background work and shuts down without
// losing events.
package platform

import (
	"context"
	"log/slog"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/admit"
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
	// Auth authenticates agents (one per host, shared by its services; nil
	// in a job, which serves no request).
	Auth *auth.Middleware
	// Citizens answers for agents this service has not seen yet: in process
	// when a service of the same host is a CitizenSource, else identity over
	// HTTP (WORLD_IDENTITY_URL).
	Citizens citizens.Source
	// AmbassadorToken guards /api/admin routes.
	AmbassadorToken string
	// Limits is the kit's rate limiter for routes with budgets of their own
	// (registration, storage writes, garden plantings); Auth already counts
	// every authenticated write. Nil in a job.
	Limits *admit.Limits
}

// Service is one Shared World service.
type Service interface {
	// Name is the service's name ("identity", "tickets", ...).
	Name() string
	// Routes registers the public routes (the ones the Ingress exposes).
	Routes(r fiber.Router)
	// BodyLimits lists routes whose body limit is above the 1 MiB default
	// ("POST /path" → bytes). The service table's body limit for the
	// service is the largest of these.
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

// CitizenSource is implemented by the service that keeps the citizens
// (identity): every service of the same host looks citizens up through it
// in process instead of over HTTP.
type CitizenSource interface {
	Citizens() citizens.Source
}

// PresenceSink is implemented by the service that keeps presence
// (identity): the host's auth middleware reports each authenticated
// request to it in process instead of batching sightings over HTTP.
type PresenceSink interface {
	Seen(ctx context.Context, agentID string, signed bool)
}
