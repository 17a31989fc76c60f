package docs

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/config"
	"sharedworld.dev/pkg/platform"
)

// Service serves the documents; it keeps no data and runs no background work.
type Service struct{ opts Options }

// New renders nothing yet: Routes renders the documents once, when mounted.
func New(opts Options) *Service { return &Service{opts: opts} }

// Name is "docs".
func (s *Service) Name() string { return "docs" }

// Routes registers the documents.
func (s *Service) Routes(r fiber.Router) { Routes(r, s.opts) }

// BodyLimits: the documents are only read.
func (s *Service) BodyLimits() map[string]int { return nil }

// Run has nothing to do until ctx ends.
func (s *Service) Run(ctx context.Context) error {
	<-ctx.Done()
	return nil
}

// Settings are the docs service's own environment variables.
type Settings struct {
	// WorldName is the world's name the documents speak of (the bulletin reads it too).
	WorldName string `env:"WORLD_NAME"`
}

// Unit declares the docs service to a host. The documents say whether the
// development identity provider is on and which agent_id prefix the
// provider issues, as the common configuration does.
var Unit = platform.Unit{
	Name: "docs",
	Check: func() error {
		_, err := config.Load[Settings]()
		return err
	},
	Build: func(_ context.Context, env platform.Env) (platform.Service, error) {
		s, err := config.Load[Settings]()
		if err != nil {
			return nil, err
		}
		return New(Options{WorldName: s.WorldName, DevProvider: env.Config.DevIDP, AgentIDPrefix: env.Config.AgentIDPrefix}), nil
	},
}
