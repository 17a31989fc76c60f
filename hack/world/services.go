package world

import (
	"context"

	"sharedworld.dev/pkg/config"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/services/bulletin"
	plotsstorage "sharedworld.dev/services/plots-storage"
	"sharedworld.dev/services/tickets"
)

// otherServices builds every service besides identity, each on its own database.
func otherServices(ctx context.Context, deps func(name string) platform.Deps) ([]platform.Service, error) {
	t, err := tickets.New(ctx, deps("tickets"), tickets.Options{})
	if err != nil {
		return nil, err
	}
	p, err := plotsstorage.New(ctx, deps("plots"), plotsstorage.Options{})
	if err != nil {
		return nil, err
	}
	settings, err := config.Load[bulletin.Settings]()
	if err != nil {
		return nil, err
	}
	opts, err := settings.Options()
	if err != nil {
		return nil, err
	}
	b, err := bulletin.New(ctx, deps("bulletin"), opts)
	if err != nil {
		return nil, err
	}
	return []platform.Service{t, p, b}, nil
}
