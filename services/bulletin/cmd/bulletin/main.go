// Command bulletin serves the bulletin service alone, configured by WORLD_*
// environment variables. `bulletin rebuild` instead rebuilds every
// projection by replaying every topic, then exits.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"sharedworld.dev/pkg/apidocs"
	"sharedworld.dev/pkg/config"
	"sharedworld.dev/pkg/logging"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/services/bulletin"
)

func main() {
	settings, err := config.Load[bulletin.Settings]()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	opts, _ := settings.Options() // validated by Load
	if len(os.Args) > 1 && os.Args[1] == "rebuild" {
		os.Exit(rebuild(opts))
	}
	platform.Main("bulletin", func(ctx context.Context, h *platform.Host) (platform.Service, error) {
		h.Authenticate(ctx)
		svc, err := bulletin.New(ctx, h.Deps, opts)
		if err != nil {
			return nil, err
		}
		return withDocs{Service: svc, docs: apidocs.Options{WorldName: opts.World.Name, DevProvider: h.Config.DevIDP, AgentIDPrefix: h.Config.AgentIDPrefix}}, nil
	})
}

func rebuild(opts bulletin.Options) int {
	cfg, err := config.Load[config.Common]()
	log := logging.New(os.Stdout, "bulletin", cfg.LogLevel)
	if err != nil {
		log.Error("invalid configuration", slog.String("error", err.Error()))
		return 2
	}
	ctx := context.Background()
	h, err := platform.NewHost(ctx, "bulletin", cfg, log)
	if err != nil {
		log.Error("rebuild failed", slog.String("error", err.Error()))
		return 1
	}
	defer func() { _ = h.Client.Disconnect(context.Background()) }()
	n, err := bulletin.Rebuild(ctx, h.Deps, opts)
	if err != nil {
		log.Error("rebuild failed", slog.String("error", err.Error()), slog.Int("events_applied", n))
		return 1
	}
	log.Info("rebuild done", slog.Int("events_applied", n))
	return 0
}
