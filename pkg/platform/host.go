package platform

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/segmentio/kafka-go"

	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/citizens"
	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/config"
	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/mongox"
)

var errLookupTooEarly = errors.New("citizen lookup asked before the host finished building its services")

// Options configure a host.
type Options struct {
	// Config is the process's common configuration: addresses (an empty
	// AdminAddr serves health and metrics on Addr), auth, the ambassador
	// token, where identity is when no service of the host keeps citizens.
	Config  config.Common
	Backend *Backend
	// Clock is every service's clock (default the system clock).
	Clock  clock.Clock
	Logger *slog.Logger
	// Local says the host is the whole world in one process (the local
	// runner): it serves no /internal routes, since no other process calls
	// them, and it lets the event pipeline come to rest before it stops, so
	// that a graceful stop leaves every projection up to date. Nothing
	// depends on that for correctness: the embedded broker keeps its log
	// and consumer offsets on disk (embedded.StartDurableKafka), so after a
	// kill the rest is delivered at the next start.
	Local bool
}

// Host serves one or more services from one process.
type Host struct {
	opts     Options
	log      *slog.Logger
	writer   *kafka.Writer
	auth     *auth.Middleware
	citizens *lookup
	presence *citizens.PresenceReporter
	gate     *gate
	services []Service
	endLife  context.CancelFunc
	// dbs are the services' databases, whose in-memory copies a clean stop
	// writes to a snapshot (snapshot.go).
	dbs []*mongox.DB

	app, admin *fiber.App
	url        string
	adminURL   string
	draining   atomic.Bool // Drain began: not ready
	cancelBG   context.CancelFunc
	bgDone     chan struct{}
	served     chan error
}

// New builds every unit's service on opts.Backend, in order: first each
// unit's Trust (the providers every verifier of the host trusts), then the
// auth middleware, then each service. The citizen lookup and presence go
// in process to the service of the host that is a CitizenSource and a
// PresenceSink, and over HTTP to identity when there is none. On error the
// backend is closed.
func New(ctx context.Context, opts Options, units ...Unit) (_ *Host, err error) {
	// h is not the named result: an error return sets that to nil before
	// the deferred close runs.
	h, life := newHost(ctx, opts)
	defer func() {
		if err != nil {
			h.close()
		}
	}()
	if opts.Config.MongoDB != "" && len(units) > 1 {
		return nil, errors.New("WORLD_MONGO_DATABASE names one service's database; leave it unset when a host serves several services")
	}
	envs := make([]Env, len(units))
	var trusted []auth.Provider
	for i, u := range units {
		envs[i] = h.env(u.Name)
	}
	if err := h.openSnapshots(ctx); err != nil {
		return nil, err
	}
	// The in-memory copies fill side by side while the services build
	// (mongox.Loads); the host is built once every one is.
	loads := mongox.NewLoads(runtime.GOMAXPROCS(0))
	for _, db := range h.dbs {
		db.LoadInBackground(loads)
	}
	defer func() { _ = loads.Wait() }() // before the close above, on an error
	for i, u := range units {
		if u.Trust == nil {
			continue
		}
		if envs[i].Trusted, err = u.Trust(ctx, envs[i]); err != nil {
			return nil, fmt.Errorf("%s: %w", u.Name, err)
		}
		trusted = append(trusted, envs[i].Trusted...)
	}
	g, err := newGate(ctx, opts.Backend, opts.Config, h.log)
	if err != nil {
		return nil, fmt.Errorf("request gate: %w", err)
	}
	h.gate = g
	h.auth = newAuth(life, opts.Config, trusted, g, h.log)
	for i, u := range units {
		envs[i].Deps.Auth = h.auth
		envs[i].Deps.Limits = g.limits
		began := time.Now()
		svc, err := u.Build(ctx, envs[i])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", u.Name, err)
		}
		// where a start's time goes, service by service
		h.log.Info("service built", slog.String("unit", u.Name), slog.Duration("took", time.Since(began)))
		h.services = append(h.services, svc)
	}
	began := time.Now()
	if err := loads.Wait(); err != nil {
		return nil, err
	}
	h.log.Info("in-memory copies loaded", slog.Duration("waited", time.Since(began)))
	if err := h.wire(); err != nil {
		return nil, err
	}
	return h, nil
}

// newHost holds what every host has, services or not (a job's host has
// none): the broker writer, the citizen lookup, and a lifetime for the
// verifier's refresh that ends when the host closes.
func newHost(ctx context.Context, opts Options) (*Host, context.Context) {
	if opts.Clock == nil {
		opts.Clock = clock.System{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	h := &Host{opts: opts, log: opts.Logger, citizens: &lookup{}, served: make(chan error, 2)}
	life, endLife := context.WithCancel(context.WithoutCancel(ctx))
	h.endLife = endLife
	h.writer = events.NewWriter(opts.Backend.Brokers)
	return h, life
}

// env is what a unit gets from this host (without auth, which comes after
// every unit's Trust).
func (h *Host) env(service string) Env {
	db := h.opts.Backend.DB(service)
	h.dbs = append(h.dbs, db)
	return Env{Config: h.opts.Config, Deps: Deps{
		Logger: h.log, DB: db, Brokers: h.opts.Backend.Brokers,
		Publisher: h.writer, Clock: h.opts.Clock, Citizens: h.citizens,
		AmbassadorToken: h.opts.Config.AmbassadorToken,
	}}
}

// wire points the citizen lookup and the presence hook at the host's own
// services when one keeps citizens or presence, and at identity over HTTP
// otherwise.
func (h *Host) wire() error {
	var sources []CitizenSource
	var sinks []PresenceSink
	for _, s := range h.services {
		if cs, ok := s.(CitizenSource); ok {
			sources = append(sources, cs)
		}
		if ps, ok := s.(PresenceSink); ok {
			sinks = append(sinks, ps)
		}
	}
	if len(sources) > 1 || len(sinks) > 1 {
		return errors.New("more than one service of this host keeps citizens or presence")
	}
	if len(sources) == 1 {
		h.citizens.src = sources[0].Citizens()
	} else {
		h.citizens.src = citizens.HTTPSource{BaseURL: h.opts.Config.IdentityURL}
	}
	if h.auth == nil { // a job's host serves no request
		return nil
	}
	if len(sinks) == 1 {
		h.auth.Seen = sinks[0].Seen
	} else {
		h.presence = &citizens.PresenceReporter{BaseURL: h.opts.Config.IdentityURL, Log: h.log, Clock: h.opts.Clock}
		h.auth.Seen = h.presence.Seen
	}
	return nil
}

// Services are the host's services, in the order of its units.
func (h *Host) Services() []Service { return h.services }

// URL is the base URL of the public routes once Start returned.
func (h *Host) URL() string { return h.url }

// AdminURL is the base URL of health and metrics on the admin address once
// Start returned (empty without one: they are on URL).
func (h *Host) AdminURL() string { return h.adminURL }

// listen opens a listener to serve with httpx.Serve.
func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	return ln, nil
}

// close releases what New acquired.
func (h *Host) close() {
	h.endLife()
	_ = h.writer.Close()
	h.opts.Backend.Close()
}
