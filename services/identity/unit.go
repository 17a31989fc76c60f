package identity

import (
	"context"

	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/services/identity/internal/devidp"
)

// Unit declares the identity service to a host (its binary or the local
// runner). With WORLD_DEV_IDP on, identity serves the development identity
// provider, which every verifier of the host must trust: Trust opens it
// before anything else is built.
var Unit = platform.Unit{
	Name: "identity",
	Trust: func(ctx context.Context, env platform.Env) ([]auth.Provider, error) {
		if !env.Config.DevIDP {
			return nil, nil
		}
		dev, err := OpenDevProvider(ctx, env.Deps.DB, env.Config.AgentIDPrefix)
		if err != nil {
			return nil, err
		}
		return []auth.Provider{dev}, nil
	},
	Build: func(ctx context.Context, env platform.Env) (platform.Service, error) {
		var opts Options
		for _, p := range env.Trusted {
			if dev, ok := p.(*devidp.Provider); ok {
				opts.DevProvider = dev
			}
		}
		s, err := New(ctx, env.Deps, opts)
		if err != nil {
			return nil, err
		}
		return s, nil
	},
}
