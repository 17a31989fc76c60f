package messaging

import (
	"context"

	"sharedworld.dev/pkg/platform"
)

// Unit declares the messaging service to a host (its binary or the local runner).
var Unit = platform.Unit{
	Name: "messaging",
	Build: func(ctx context.Context, env platform.Env) (platform.Service, error) {
		s, err := New(ctx, env.Deps, Options{})
		if err != nil {
			return nil, err
		}
		return s, nil
	},
}
