package world

import (
	"context"
	"log/slog"
	"time"

	"sharedworld.dev/hack/services"
	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/config"
	"sharedworld.dev/pkg/platform"
)

// World is a running local world: a platform host with the embedded
// backend and every service of the service table.
type World struct {
	Config Config
	// URL is the base URL the world serves on.
	URL   string
	Clock clock.Clock
	host  *platform.Host
}

// Start brings the world up and serves it; it returns once the world is ready.
func Start(ctx context.Context, cfg Config, log *slog.Logger) (*World, error) {
	cfg.Defaults()
	backend, cfg, err := startBackend(ctx, cfg, log)
	if err != nil {
		return nil, err
	}
	w := &World{Config: cfg, Clock: clock.System{}}
	units := services.Units()
	if cfg.DevClock {
		offset, err := keptOffset(ctx, backend.DB(devClockUnit.Name).Database)
		if err != nil {
			backend.Close()
			return nil, err
		}
		w.Clock = clock.NewDevAt(offset)
		units = append(units, devClockUnit)
	}
	h, err := platform.New(ctx, platform.Options{Config: cfg.common(), Backend: backend, Clock: w.Clock, Logger: log, Local: true}, units...)
	if err != nil {
		return nil, err
	}
	if err := h.Start(ctx); err != nil {
		return nil, err
	}
	w.host, w.URL = h, h.URL()
	return w, nil
}

// common is the configuration of the runner's host: every service on one
// port with health and metrics, the development identity provider as the
// one trusted provider.
func (c Config) common() config.Common {
	return config.Common{
		Addr: c.Addr, LogLevel: c.LogLevel, AccessLogSample: c.AccessLogSample, RequestDeadline: c.RequestDeadline, MongoURI: c.MongoURI, KafkaBrokers: c.KafkaBrokers,
		AmbassadorToken: c.AmbassadorToken, AgentIDPrefix: c.AgentIDPrefix, RequireSignatures: c.RequireSignatures,
		DevIDP: true, RevocationRefreshSec: 10, DataDir: c.DataDir, RateLimits: c.RateLimits,
		ClientIPHeader: c.ClientIPHeader, LoopbackSourcesUnlimited: true, FrontDoor: c.FrontDoor,
		WritesInFlight: c.WritesInFlight, WriteWait: c.WriteWait,
	}
}

// Services are the world's services, in the order of the service table.
func (w *World) Services() []platform.Service { return w.host.Services() }

// Wait blocks until the server stops on its own (an error) or ctx ends.
func (w *World) Wait(ctx context.Context) error { return w.host.Wait(ctx) }

// Stop shuts down without losing anything: no new requests, in-flight ones
// finish, every outbox is published and every consumer has applied what was
// published, then the background work, the broker and the database stop.
// A kill loses nothing either: the broker's log is on disk beside the
// database, and consumers resume from their committed offsets.
func (w *World) Stop(timeout time.Duration) error { return w.host.Stop(timeout) }
