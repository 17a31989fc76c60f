// Command plots-storage serves the plots-storage service alone, configured
// by WORLD_* environment variables (see the README's configuration table).
package main

import (
	"context"

	"sharedworld.dev/pkg/platform"
	plotsstorage "sharedworld.dev/services/plots-storage"
)

func main() {
	platform.Main(plotsstorage.Name, func(ctx context.Context, h *platform.Host) (platform.Service, error) {
		h.Authenticate(ctx)
		return plotsstorage.New(ctx, h.Deps, plotsstorage.Options{})
	})
}
