// Command world runs the whole Shared World in one process on the embedded
// default (CONTRACT §10): `make run`.
package main

import (
	"context"
	"log/slog"
	"net/http"
	_ "net/http/pprof" // served only when WORLD_PPROF_ADDR is set
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"sharedworld.dev/hack/world"
	"sharedworld.dev/pkg/config"
	"sharedworld.dev/pkg/logging"
	"sharedworld.dev/pkg/platform"
)

func main() {
	platform.TuneGC()
	cfg, err := config.Load[world.Config]()
	log := logging.New(os.Stdout, "world", cfg.LogLevel)
	if err != nil {
		log.Error("invalid configuration", slog.String("error", err.Error()))
		os.Exit(2)
	}
	if cfg.PprofAddr != "" {
		// WORLD_PPROF_ADDR=127.0.0.1:6060, then go tool pprof http://127.0.0.1:6060/debug/pprof/profile
		// (or /block, /mutex: sampled only while profiling is asked for,
		// since every blocking event then costs a stack walk)
		runtime.SetBlockProfileRate(int(100 * time.Microsecond))
		runtime.SetMutexProfileFraction(10)
		go func() {
			if err := http.ListenAndServe(cfg.PprofAddr, nil); err != nil {
				log.Error("pprof listener", slog.String("error", err.Error()))
			}
		}()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	w, err := world.Start(ctx, cfg, log)
	if err != nil {
		log.Error("world failed to start", slog.String("error", err.Error()))
		os.Exit(1)
	}
	if w.Config.TokenGenerated {
		log.Info("generated an ambassador token; set WORLD_AMBASSADOR_TOKEN to choose one", slog.String("ambassador_token", w.Config.AmbassadorToken))
	}
	log.Info("world ready on " + w.URL)
	serveErr := w.Wait(ctx)
	log.Info("shutting down")
	if err := w.Stop(30 * time.Second); err != nil {
		log.Error("shutdown", slog.String("error", err.Error()))
	}
	if serveErr != nil {
		log.Error("server stopped", slog.String("error", serveErr.Error()))
		os.Exit(1)
	}
	log.Info("stopped")
}
