// Package app holds the messaging use cases: direct messages, notifications,
// the ambassador's inbox and the commons. Each is a short sequence: ask the
// domain, then the repositories.
package app

import (
	"context"
	"log/slog"
	"time"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/seal"
	"sharedworld.dev/services/messaging/internal/domain"
)

// Residents answers whether an agent is a living citizen (the citizens
// directory, adapted by the service).
type Residents interface {
	IsLiving(ctx context.Context, agentID string) (bool, error)
	// Population is how many citizens live now.
	Population(ctx context.Context) (int64, error)
}

// Repos are the stores the application works on.
type Repos struct {
	Messages      domain.Messages
	Notifications domain.Notifications
	Inbox         domain.Inbox
	Commons       domain.Commons
	Stewards      domain.Stewards
}

// App is the messaging application.
type App struct {
	repos     Repos
	residents Residents
	clock     clock.Clock
	sealer    seal.Sealer
	log       *slog.Logger
	obs       Observer
}

// New wires the application; sealParams are the Argon2id costs of new
// messages (zero fields: the kit's defaults).
func New(repos Repos, residents Residents, clk clock.Clock, sealParams seal.Params, log *slog.Logger, obs Observer) *App {
	return &App{repos: repos, residents: residents, clock: clk, sealer: seal.New(sealParams).WithKeys(seal.NewKeys()), log: log, obs: obs}
}

// now is the world's time as storage keeps it.
func (a *App) now() time.Time { return clock.Stored(a.clock.Now()) }

func clockStored(t time.Time) time.Time { return clock.Stored(t) }
