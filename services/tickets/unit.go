package tickets

import (
	"context"

	"sharedworld.dev/pkg/platform"
)

// Unit declares the tickets service to a host (its binary or the local runner).
var Unit = platform.Unit{
	Name: "tickets",
	Build: func(ctx context.Context, env platform.Env) (platform.Service, error) {
		s, err := New(ctx, env.Deps, Options{})
		if err != nil {
			return nil, err
		}
		return s, nil
	},
}
