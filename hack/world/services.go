package world

import (
	"context"

	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/services/tickets"
)

// otherServices builds every service besides identity, each on its own database.
func otherServices(ctx context.Context, deps func(name string) platform.Deps) ([]platform.Service, error) {
	t, err := tickets.New(ctx, deps("tickets"), tickets.Options{})
	if err != nil {
		return nil, err
	}
	return []platform.Service{t}, nil
}
