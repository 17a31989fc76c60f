package platform

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/segmentio/kafka-go"
	"go.mongodb.org/mongo-driver/mongo"

	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/citizens"
	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/config"
	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/logging"
	"sharedworld.dev/pkg/mongox"
)

// Host is what a service binary builds from its environment.
type Host struct {
	Config config.Common
	Client *mongo.Client
	Deps   Deps
	// Presence reports sightings to identity (nil inside identity itself).
	Presence *citizens.PresenceReporter
}

// NewHost connects to MongoDB and prepares Deps for service name from cfg.
// extra providers are trusted in addition to the configured ones (identity
// adds its development provider when that is on).
func NewHost(ctx context.Context, name string, cfg config.Common, log *slog.Logger) (*Host, error) {
	client, err := mongox.Connect(ctx, cfg.MongoURI)
	if err != nil {
		return nil, err
	}
	dbName := cfg.MongoDB
	if dbName == "" {
		dbName = "sharedworld_" + name
	}
	h := &Host{Config: cfg, Client: client}
	h.Deps = Deps{
		// A service binary runs as one of several replicas: every write is guarded.
		Logger: log, DB: mongox.NewDB(client.Database(dbName), mongox.Shared), Brokers: cfg.KafkaBrokers,
		Publisher: events.NewWriter(cfg.KafkaBrokers), Clock: clock.System{},
		AmbassadorToken: cfg.AmbassadorToken,
	}
	if name != "identity" {
		h.Deps.Citizens = citizens.HTTPSource{BaseURL: cfg.IdentityURL}
		h.Presence = &citizens.PresenceReporter{BaseURL: cfg.IdentityURL, Log: log}
	}
	return h, nil
}

// Authenticate builds the auth middleware trusting the configured providers plus extra.
func (h *Host) Authenticate(ctx context.Context, extra ...auth.Provider) *auth.Middleware {
	cfg := h.Config
	providers := auth.Providers(extra)
	if len(cfg.ProviderKeys) > 0 {
		var keys []auth.Key
		for kid, pub := range cfg.ProviderKeys {
			keys = append(keys, auth.Key{Kid: kid, PublicKey: pub})
		}
		providers = append(providers, auth.StaticProvider{KeyList: keys})
	}
	if cfg.ProviderKeysURL != "" || cfg.ProviderRevocationsURL != "" {
		providers = append(providers, auth.HTTPProvider{KeysURL: cfg.ProviderKeysURL, RevocationsURL: cfg.ProviderRevocationsURL})
	}
	opts := auth.VerifierOptions{Provider: providers, Prefix: cfg.AgentIDPrefix, Logger: h.Deps.Logger,
		RevocationRefresh: time.Duration(cfg.RevocationRefreshSec) * time.Second}
	if cfg.RemoteVerify {
		opts.Remote = &auth.RemoteVerifier{URL: cfg.ProviderVerifyURL}
	}
	v := auth.NewVerifier(opts)
	v.Start(ctx)
	requireSig := cfg.RequireSignatures
	mw := &auth.Middleware{Verifier: v, Replay: auth.NewReplayCache(), RequireSignatures: func() bool { return requireSig }}
	if h.Presence != nil {
		mw.Seen = h.Presence.Seen
	}
	h.Deps.Auth = mw
	return mw
}

// KafkaReachable is a readiness probe: one broker answers a TCP dial.
func KafkaReachable(brokers []string) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		var last error
		for _, b := range brokers {
			conn, err := kafka.DialContext(ctx, "tcp", b)
			if err == nil {
				return conn.Close()
			}
			last = err
		}
		if last == nil {
			last = errors.New("no brokers configured")
		}
		return last
	}
}

// Serve runs svc: public routes on cfg.Addr, metrics and health on
// cfg.AdminAddr, background work, and a graceful shutdown on SIGINT/SIGTERM
// that stops taking requests, lets in-flight ones finish and drains the outbox.
func (h *Host) Serve(ctx context.Context, svc Service) error {
	log := h.Deps.Logger
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	checks := []httpx.Check{{Name: "mongodb", Probe: mongox.Ping(h.Client)}, {Name: "kafka", Probe: KafkaReachable(h.Config.KafkaBrokers)}}
	app := httpx.NewApp(httpx.Options{Service: svc.Name(), Logger: log, BodyLimits: svc.BodyLimits()})
	httpx.MountHealth(app, checks...)
	svc.Routes(app)
	if ir, ok := svc.(InternalRouter); ok {
		ir.InternalRoutes(app)
	}
	admin := httpx.NewApp(httpx.Options{Service: svc.Name() + "-admin", Logger: log})
	httpx.MountHealth(admin, checks...)
	httpx.MountMetrics(admin)

	bg, cancelBG := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := svc.Run(bg); err != nil {
			log.Error("background work stopped", slog.String("error", err.Error()))
		}
	}()
	if h.Presence != nil {
		go h.Presence.Run(bg)
	}

	errc := make(chan error, 2)
	go func() { errc <- listen(app, h.Config.Addr) }()
	go func() { errc <- listen(admin, h.Config.AdminAddr) }()
	log.Info("serving", slog.String("addr", h.Config.Addr), slog.String("admin_addr", h.Config.AdminAddr))

	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	log.Info("shutting down")
	if d, ok := svc.(Drainer); ok {
		d.Drain()
	}
	_ = app.ShutdownWithTimeout(20 * time.Second)
	_ = admin.ShutdownWithTimeout(5 * time.Second)
	cancelBG()
	<-done
	_ = h.Client.Disconnect(context.Background())
	return err
}

func listen(app *fiber.App, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	return app.Listener(ln)
}

// Main is the whole main() of a service binary: load configuration, build
// the host, let build construct the service, serve it.
func Main(name string, build func(ctx context.Context, h *Host) (Service, error)) {
	cfg, err := config.Load[config.Common]()
	log := logging.New(os.Stdout, name, cfg.LogLevel)
	if err != nil {
		log.Error("invalid configuration", slog.String("error", err.Error()))
		os.Exit(2)
	}
	ctx := context.Background()
	h, err := NewHost(ctx, name, cfg, log)
	if err != nil {
		log.Error("start failed", slog.String("error", err.Error()))
		os.Exit(1)
	}
	svc, err := build(ctx, h)
	if err != nil {
		log.Error("start failed", slog.String("error", err.Error()))
		os.Exit(1)
	}
	if err := h.Serve(ctx, svc); err != nil {
		log.Error("server stopped", slog.String("error", err.Error()))
		os.Exit(1)
	}
}
