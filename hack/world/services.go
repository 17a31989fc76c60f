package world

import (
	"context"

	"sharedworld.dev/pkg/platform"
)

// otherServices builds every service besides identity, each on its own database.
func otherServices(ctx context.Context, deps func(name string) platform.Deps, citizensSource any) ([]platform.Service, error) {
	_ = ctx
	_ = deps
	_ = citizensSource
	return nil, nil
}
