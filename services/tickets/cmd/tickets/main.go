// Command tickets serves the tickets service alone, configured by WORLD_*
// environment variables (see the README's configuration table).
package main

import (
	"context"

	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/services/tickets"
)

func main() {
	platform.Main("tickets", func(ctx context.Context, h *platform.Host) (platform.Service, error) {
		h.Authenticate(ctx)
		return tickets.New(ctx, h.Deps, tickets.Options{})
	})
}
