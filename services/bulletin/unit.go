package bulletin

import (
	"context"

	"sharedworld.dev/pkg/config"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/services/bulletin/internal/kube"
)

// Unit declares the bulletin to a host (its binary or the local runner),
// with its one job: `bulletin rebuild`.
var Unit = platform.Unit{
	Name:  "bulletin",
	Check: func() error { _, err := settingsOptions(); return err },
	Build: func(ctx context.Context, env platform.Env) (platform.Service, error) {
		set, err := config.Load[Settings]()
		if err != nil {
			return nil, err
		}
		opts, err := set.Options()
		if err != nil {
			return nil, err
		}
		if opts.Role == RoleAggregator && set.Election == ElectionKubernetes {
			opts = opts.withDefaults()
			if opts.Elector, err = kube.InCluster(set.LeaseNamespace, set.LeaseName, opts.Holder, env.Deps.Logger); err != nil {
				return nil, err
			}
		}
		s, err := New(ctx, env.Deps, opts)
		if err != nil {
			return nil, err
		}
		return s, nil
	},
	Jobs: []platform.Job{RebuildJob},
}

// settingsOptions reads the bulletin's own environment variables.
func settingsOptions() (Options, error) {
	s, err := config.Load[Settings]()
	if err != nil {
		return Options{}, err
	}
	return s.Options()
}
