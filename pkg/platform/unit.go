package platform

import (
	"context"

	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/config"
)

// Unit declares a service to a host before it is built: its name, how to
// build it from the host's dependencies, and its one-shot jobs. A service's
// root package exports one (tickets.Unit); its binary is Main(tickets.Unit)
// and the local runner hosts every unit of the service table.
type Unit struct {
	// Name is the service's name; its binary is services/<Name>/cmd/<Name>
	// and its database sharedworld_<Name> unless WORLD_MONGO_DATABASE says.
	Name string
	// Check, when set, validates the service's own settings before the host
	// connects to anything, so a bad deployment fails at once.
	Check func() error
	// Trust, when set, runs before any service of the host is built and
	// returns identity providers the service serves itself (identity's
	// development provider): the host's verifier trusts them, and Build
	// finds them again in Env.Trusted.
	Trust func(ctx context.Context, env Env) ([]auth.Provider, error)
	// Build constructs the service.
	Build func(ctx context.Context, env Env) (Service, error)
	// Jobs are the one-shot commands of the service (`<binary> <job>`).
	Jobs []Job
}

// Job is a one-shot command run with the service's configuration, logging
// and dependencies instead of serving it (`bulletin rebuild`).
type Job struct {
	Name    string
	Summary string
	Run     func(ctx context.Context, env Env) error
}

// Env is what a unit's Build, Trust and jobs receive from the host.
type Env struct {
	Deps Deps
	// Config is the process's common configuration.
	Config config.Common
	// Trusted holds the providers this unit's Trust returned.
	Trusted []auth.Provider
}

// Job returns the unit's job with the given name.
func (u Unit) Job(name string) (Job, bool) {
	for _, j := range u.Jobs {
		if j.Name == name {
			return j, true
		}
	}
	return Job{}, false
}
