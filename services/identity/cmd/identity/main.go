// Command identity serves the identity service alone, configured by
// WORLD_* environment variables (see the README's configuration table).
package main

import (
	"context"

	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/services/identity"
)

func main() {
	platform.Main("identity", func(ctx context.Context, h *platform.Host) (platform.Service, error) {
		opts := identity.Options{}
		var extra []auth.Provider
		if h.Config.DevIDP {
			dev, err := identity.OpenDevProvider(ctx, h.Deps.DB, h.Config.AgentIDPrefix)
			if err != nil {
				return nil, err
			}
			opts.DevProvider = dev
			extra = append(extra, dev)
		}
		h.Authenticate(ctx, extra...)
		svc, err := identity.New(ctx, h.Deps, opts)
		if err != nil {
			return nil, err
		}
		h.Deps.Auth.Seen = svc.Seen
		return svc, nil
	})
}
