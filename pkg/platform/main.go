package platform

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/config"
	"sharedworld.dev/pkg/logging"
)

// Exit codes of Main.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

// Version is the binary's version, set at link time
// (-ldflags "-X sharedworld.dev/pkg/platform.Version=v1.2.3") by the image build.
var Version = "dev"

// Main is the whole main() of a service binary: `<binary>` serves the
// units, `<binary> <job>` runs one of their jobs and exits, `<binary>
// -help` lists them. Configuration comes from WORLD_* variables; a bad
// value stops the binary before it connects to anything.
func Main(units ...Unit) {
	TuneGC()
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr, units))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer, units []Unit) int {
	name := units[0].Name
	var job *Job
	var jobUnit Unit
	switch {
	case len(args) == 0:
	case len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help"):
		usage(stdout, units)
		return exitOK
	case len(args) == 1 && (args[0] == "-version" || args[0] == "--version" || args[0] == "version"):
		fmt.Fprintln(stdout, name, Version)
		return exitOK
	case len(args) == 1:
		for _, u := range units {
			if j, ok := u.Job(args[0]); ok {
				job, jobUnit = &j, u
			}
		}
		if job == nil {
			fmt.Fprintf(stderr, "%s: unknown command %q\n\n", name, args[0])
			usage(stderr, units)
			return exitUsage
		}
	default:
		fmt.Fprintf(stderr, "%s: too many arguments: %s\n\n", name, strings.Join(args, " "))
		usage(stderr, units)
		return exitUsage
	}

	cfg, err := config.Load[config.Common]()
	log := logging.New(stdout, name, cfg.LogLevel)
	if err != nil {
		log.Error("invalid configuration", slog.String("error", err.Error()))
		return exitUsage
	}
	for _, u := range units {
		if u.Check == nil {
			continue
		}
		if err := u.Check(); err != nil {
			log.Error("invalid configuration", slog.String("error", err.Error()))
			return exitUsage
		}
	}
	backend, err := Connect(ctx, cfg)
	if err != nil {
		log.Error("start failed", slog.String("error", err.Error()))
		return exitFailed
	}
	opts := Options{Config: cfg, Backend: backend, Logger: log}
	if cfg.DevClock {
		opts.Clock = clock.NewDevAt(cfg.DevClockOffset)
	}
	if job != nil {
		return runJob(ctx, opts, jobUnit, *job)
	}
	h, err := New(ctx, opts, units...)
	if err != nil {
		log.Error("start failed", slog.String("error", err.Error()))
		return exitFailed
	}
	if err := h.Serve(ctx); err != nil {
		log.Error("server stopped", slog.String("error", err.Error()))
		return exitFailed
	}
	return exitOK
}

// runJob runs one job with the unit's dependencies (no auth middleware: a
// job serves no request), then closes them.
func runJob(ctx context.Context, opts Options, u Unit, j Job) int {
	h, _ := newHost(ctx, opts)
	defer h.close()
	if err := h.wire(); err != nil {
		opts.Logger.Error(j.Name+" failed", slog.String("error", err.Error()))
		return exitFailed
	}
	env := h.env(u.Name)
	// a job writes too: the snapshot of the last clean stop no longer holds
	if err := h.openSnapshots(ctx); err != nil {
		opts.Logger.Error(j.Name+" failed", slog.String("error", err.Error()))
		return exitFailed
	}
	if err := j.Run(ctx, env); err != nil {
		opts.Logger.Error(j.Name+" failed", slog.String("error", err.Error()))
		return exitFailed
	}
	opts.Logger.Info(j.Name + " done")
	return exitOK
}

func usage(w io.Writer, units []Unit) {
	names := make([]string, len(units))
	for i, u := range units {
		names[i] = u.Name
	}
	fmt.Fprintf(w, "usage: %s [job]\n\nWithout a job, serves %s: public routes on WORLD_ADDR (default :8080), health and\nmetrics on WORLD_ADMIN_ADDR (default :9090), until SIGINT or SIGTERM. Configuration\ncomes from WORLD_* environment variables (WORLD_MONGO_URI and WORLD_KAFKA_BROKERS\nare required; see the README's configuration tables).\n", names[0], strings.Join(names, ", "))
	fmt.Fprintln(w, "\njobs:")
	n := 0
	for _, u := range units {
		for _, j := range u.Jobs {
			fmt.Fprintf(w, "  %-10s %s\n", j.Name, j.Summary)
			n++
		}
	}
	if n == 0 {
		fmt.Fprintln(w, "  (none)")
	}
}
