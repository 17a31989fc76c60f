package platform

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/httpx"
)

// Start serves the public routes of every service on Config.Addr (with
// health, and metrics too when there is no admin address), health and
// metrics on Config.AdminAddr, and starts the background work. It returns
// once the listeners are open; on error the host is closed.
func (h *Host) Start(ctx context.Context) error {
	cfg := h.opts.Config
	name := "world"
	if len(h.services) == 1 {
		name = h.services[0].Name()
	}
	limits := map[string]int{}
	for _, s := range h.services {
		for route, n := range s.BodyLimits() {
			limits[route] = n
		}
	}
	checks := append(h.opts.Backend.Checks(), h.checks()...)
	h.app = httpx.NewApp(httpx.Options{Service: name, Logger: h.log, BodyLimits: limits, AccessLogSample: cfg.AccessLogSample, Deadline: cfg.RequestDeadline,
		NoFrontDoor: cfg.FrontDoor.Off(), WritesInFlight: cfg.WritesInFlight, WriteWait: cfg.WriteWait})
	httpx.MountHealth(h.app, checks...)
	if cfg.AdminAddr == "" {
		httpx.MountMetrics(h.app)
	}
	for _, s := range h.services {
		s.Routes(h.app)
		if ir, ok := s.(InternalRouter); ok && !h.opts.Local {
			ir.InternalRoutes(h.app)
		}
	}
	ln, err := listen(cfg.Addr)
	if err != nil {
		h.close()
		return err
	}
	if cfg.AdminAddr != "" {
		adminLn, err := listen(cfg.AdminAddr)
		if err != nil {
			_ = ln.Close()
			h.close()
			return err
		}
		// Probes and scrapes are not the service's traffic: counted, they
		// would make a "<name>-admin" service in every RED dashboard.
		h.admin = httpx.NewApp(httpx.Options{Service: name + "-admin", Logger: h.log, Unmetered: true})
		httpx.MountHealth(h.admin, checks...)
		httpx.MountMetrics(h.admin)
		if dc, ok := h.opts.Clock.(*clock.Dev); ok && cfg.DevClock {
			mountDevClock(h.admin, dc)
		}
		h.adminURL = "http://" + adminLn.Addr().String()
		go func() { h.served <- httpx.Serve(h.admin, adminLn) }()
	}
	h.url = "http://" + ln.Addr().String()
	h.startBackground(ctx)
	go func() { h.served <- httpx.Serve(h.app, ln) }()
	return nil
}

// startBackground runs every service's background work (and the presence
// reporter) until Stop; it outlives ctx, so that Stop decides the order.
func (h *Host) startBackground(ctx context.Context) {
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	h.cancelBG, h.bgDone = cancel, make(chan struct{})
	done := make(chan struct{}, len(h.services)+1)
	for _, s := range h.services {
		go func() {
			if err := s.Run(bg); err != nil {
				h.log.Error("background work stopped", slog.String("service", s.Name()), slog.String("error", err.Error()))
			}
			done <- struct{}{}
		}()
	}
	workers := len(h.services)
	if h.presence != nil {
		workers++
		go func() { h.presence.Run(bg); done <- struct{}{} }()
	}
	go func() {
		defer close(h.bgDone)
		for range workers {
			<-done
		}
	}()
}

// Wait blocks until a server stops on its own (an error) or ctx ends.
func (h *Host) Wait(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return nil
	case err := <-h.served:
		return err
	}
}

// Stop shuts down without losing anything (after Drain, in a service
// binary): live streams end, no new connections are taken, in-flight
// requests finish with Connection: close and idle connections close; on a Local host every
// outbox is published and every consumer has applied what was published;
// then the background work stops (relays drain their outboxes), and the
// broker writer and the backend close.
func (h *Host) Stop(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	h.beginDrain() // not ready, and every answer from now on closes its connection
	for _, s := range h.services {
		if d, ok := s.(Drainer); ok {
			d.Drain()
		}
	}
	err := httpx.Shutdown(h.app, time.Until(deadline)/2)
	if h.admin != nil {
		_ = httpx.Shutdown(h.admin, time.Second)
	}
	if h.opts.Local {
		// Half the time is kept for the relays' last drain and the
		// snapshot of the copies: with a backlog that will not clear in
		// time (a world of 100,000 tickets just seeded) the snapshot is
		// worth more than the wait, since what is left in the outboxes
		// and topics is published and applied after the next start anyway,
		// while a start without a snapshot scans every copy.
		h.settle(time.Until(deadline) / 2)
	}
	h.cancelBG()
	<-h.bgDone
	// Nothing writes any more once every request finished and the
	// background work stopped: the copies can be kept for the next start.
	h.writeSnapshots(err == nil, deadline)
	if h.gate != nil {
		// the signatures of the last reads and the last rate limit
		// slots, queued without a waiter
		dctx, cancel := context.WithDeadline(context.Background(), deadline)
		_ = h.gate.ledger.Drain(dctx)
		_ = h.gate.slots.Drain(dctx)
		cancel()
	}
	h.close()
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("some requests did not finish before shutdown: %w", err)
	}
	return err
}

// settle waits, up to max, until every relay and consumer of the process
// is idle and no event has moved for 300 ms: the pipeline is at rest.
func (h *Host) settle(max time.Duration) {
	deadline := time.Now().Add(max)
	var prev uint64
	still := -1 // the first look has nothing to compare with
	for time.Now().Before(deadline) {
		idle, moved := events.Pipeline()
		switch {
		case still < 0:
			still = 0
		case idle && moved == prev:
			still++
		default:
			still = 0
		}
		if still >= 3 {
			return
		}
		prev = moved
		time.Sleep(100 * time.Millisecond)
	}
	h.log.Warn("shutdown went ahead before the event pipeline was at rest")
}

// Serve starts the host, logs where it serves, and stops it gracefully on
// SIGINT or SIGTERM (or when a server fails): it drains for
// WORLD_DRAIN_DELAY (a second signal cuts that short), then stops.
func (h *Host) Serve(ctx context.Context) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := h.Start(ctx); err != nil {
		return err
	}
	h.log.Info("serving", slog.String("addr", h.opts.Config.Addr), slog.String("admin_addr", h.opts.Config.AdminAddr))
	serveErr := h.Wait(ctx)
	if serveErr == nil { // a failed server has nothing to drain
		again, stopAgain := signal.NotifyContext(context.WithoutCancel(ctx), os.Interrupt, syscall.SIGTERM)
		h.Drain(again, h.opts.Config.DrainDelay)
		stopAgain()
	}
	h.log.Info("shutting down")
	if err := h.Stop(30 * time.Second); err != nil {
		h.log.Error("shutdown", slog.String("error", err.Error()))
	}
	return serveErr
}
