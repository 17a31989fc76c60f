package world

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"time"

	"github.com/gofiber/fiber/v2"
	"go.mongodb.org/mongo-driver/mongo"

	"sharedworld.dev/pkg/apidocs"
	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/embedded"
	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/platform"
	catalog "sharedworld.dev/proto"
	"sharedworld.dev/services/identity"
)

// World is a running local world.
type World struct {
	Config Config
	// URL is the base URL the world serves on.
	URL   string
	Clock clock.Clock
	App   *fiber.App

	log      *slog.Logger
	client   *mongo.Client
	mongo    *embedded.Mongo
	kafka    *embedded.Kafka
	writer   interface{ Close() error }
	ln       net.Listener
	services []platform.Service
	cancelBG context.CancelFunc
	endLife  context.CancelFunc
	bgDone   chan struct{}
	served   chan error
}

// Start brings the world up and serves it; it returns once the world is ready.
func Start(ctx context.Context, cfg Config, log *slog.Logger) (*World, error) {
	cfg.Defaults()
	w := &World{Config: cfg, log: log, served: make(chan error, 1)}
	ok := false
	defer func() {
		if !ok {
			w.stopDependencies()
		}
	}()
	if err := w.startDependencies(ctx); err != nil {
		return nil, err
	}
	cfg = w.Config // now with the embedded servers' addresses
	if cfg.DevClock {
		w.Clock = clock.NewDev()
	} else {
		w.Clock = clock.System{}
	}
	writer := events.NewWriter(cfg.KafkaBrokers)
	w.writer = writer
	base := platform.Deps{Logger: log, Brokers: cfg.KafkaBrokers, Publisher: writer, Clock: w.Clock, AmbassadorToken: cfg.AmbassadorToken}
	db := func(name string) platform.Deps {
		d := base
		d.DB = mongox.NewDB(w.client.Database("sharedworld_"+name), w.mode())
		return d
	}

	// Identity first: its development provider is what every verifier trusts,
	// and its lookup is every other service's read-your-writes fallback.
	idDeps := db("identity")
	dev, err := identity.OpenDevProvider(ctx, idDeps.DB, cfg.AgentIDPrefix)
	if err != nil {
		return nil, err
	}
	verifier := auth.NewVerifier(auth.VerifierOptions{Provider: dev, Prefix: cfg.AgentIDPrefix, Logger: log, RevocationRefresh: 10 * time.Second})
	// The verifier's refresh loop lives as long as the world, not as the caller's ctx.
	life, endLife := context.WithCancel(context.WithoutCancel(ctx))
	w.endLife = endLife
	verifier.Start(life)
	requireSig := cfg.RequireSignatures
	mw := &auth.Middleware{Verifier: verifier, Replay: auth.NewReplayCache(), RequireSignatures: func() bool { return requireSig }}
	base.Auth = mw
	idDeps.Auth = mw
	idSvc, err := identity.New(ctx, idDeps, identity.Options{DevProvider: dev})
	if err != nil {
		return nil, err
	}
	mw.Seen = idSvc.Seen
	base.Citizens = idSvc.Citizens()
	w.services = append(w.services, idSvc)
	more, err := otherServices(ctx, db)
	if err != nil {
		return nil, err
	}
	w.services = append(w.services, more...)

	limits := map[string]int{}
	for _, s := range w.services {
		for k, v := range s.BodyLimits() {
			limits[k] = v
		}
	}
	app := httpx.NewApp(httpx.Options{Service: "world", Logger: log, BodyLimits: limits})
	httpx.MountHealth(app, httpx.Check{Name: "mongodb", Probe: mongox.Ping(w.client)}, httpx.Check{Name: "kafka", Probe: platform.KafkaReachable(cfg.KafkaBrokers)})
	httpx.MountMetrics(app)
	if dc, ok := w.Clock.(*clock.Dev); ok {
		mountDevClock(app, dc, cfg.AmbassadorToken)
	}
	for _, s := range w.services {
		s.Routes(app)
	}
	apidocs.Routes(app, apidocs.Options{DevProvider: true, AgentIDPrefix: cfg.AgentIDPrefix})
	w.App = app

	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	w.cancelBG, w.bgDone = cancel, make(chan struct{})
	go func() {
		defer close(w.bgDone)
		done := make(chan struct{}, len(w.services))
		for _, s := range w.services {
			go func() {
				if err := s.Run(bg); err != nil {
					log.Error("service background work stopped", slog.String("service", s.Name()), slog.String("error", err.Error()))
				}
				done <- struct{}{}
			}()
		}
		for range w.services {
			<-done
		}
	}()

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		cancel()
		<-w.bgDone
		return nil, fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	w.ln = ln
	w.URL = "http://" + ln.Addr().String()
	go func() { w.served <- app.Listener(ln) }()
	ok = true
	return w, nil
}

// mode is exclusive on the embedded database, which only this process
// writes; a MongoDB given by URI may have other writers.
func (w *World) mode() mongox.Mode {
	if w.mongo != nil {
		return mongox.Exclusive
	}
	return mongox.Shared
}

func (w *World) startDependencies(ctx context.Context) error {
	var err error
	if w.Config.MongoURI == "" {
		quiet := slog.New(w.log.Handler()).With("component", "ferretdb")
		if w.mongo, err = embedded.StartMongo(ctx, filepath.Join(w.Config.DataDir, "mongo"), filterLevel(quiet, slog.LevelError)); err != nil {
			return err
		}
		w.Config.MongoURI = w.mongo.URI
	}
	if w.client, err = mongox.Connect(ctx, w.Config.MongoURI); err != nil {
		return err
	}
	if len(w.Config.KafkaBrokers) == 0 {
		if w.kafka, err = embedded.StartKafka(0, catalog.AllTopics()...); err != nil {
			return err
		}
		w.Config.KafkaBrokers = w.kafka.Brokers
	}
	return nil
}

func (w *World) stopDependencies() {
	if w.endLife != nil {
		w.endLife()
	}
	if w.writer != nil {
		_ = w.writer.Close()
	}
	if w.client != nil {
		_ = w.client.Disconnect(context.Background())
	}
	if w.kafka != nil {
		w.kafka.Stop()
	}
	if w.mongo != nil {
		w.mongo.Stop()
	}
}

// Wait blocks until the server stops on its own (an error) or ctx ends.
func (w *World) Wait(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return nil
	case err := <-w.served:
		return err
	}
}

// Stop shuts down without losing anything: no new requests, in-flight ones
// finish, every outbox is published and every consumer has applied what was
// published (the embedded broker keeps nothing across restarts), then the
// background work, the broker and the database stop.
func (w *World) Stop(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for _, s := range w.services {
		if d, ok := s.(platform.Drainer); ok {
			d.Drain()
		}
	}
	err := w.App.ShutdownWithTimeout(time.Until(deadline) / 2)
	w.settle(time.Until(deadline))
	w.cancelBG()
	<-w.bgDone
	w.stopDependencies()
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("some requests did not finish before shutdown: %w", err)
	}
	return err
}
