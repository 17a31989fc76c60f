package bulletin

import (
	"context"
	"fmt"
	"log/slog"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/proto/catalog"
	"sharedworld.dev/services/bulletin/internal/app"
	"sharedworld.dev/services/bulletin/internal/messages"
	"sharedworld.dev/services/bulletin/internal/telemetry"
)

// RebuildJob is `bulletin rebuild`: Rebuild with the bulletin's settings,
// on the database and brokers the bulletin itself uses.
var RebuildJob = platform.Job{
	Name:    "rebuild",
	Summary: "rebuild every projection and the feed by replaying every topic, then exit (run it while no bulletin serves this database)",
	Run: func(ctx context.Context, env platform.Env) error {
		opts, err := settingsOptions()
		if err != nil {
			return err
		}
		_, err = Rebuild(ctx, env.Deps, opts)
		return err
	},
}

// Rebuild drops every projection and the feed and rebuilds them by
// replaying every topic from its first retained event. Run it while no
// bulletin serves this database (scaled to zero): one aggregator writes a
// database at a time. The announcements themselves are the bulletin's own
// records and are kept; their events are replayed like every other's. The
// feed gets a new epoch, since the replay numbers the stream anew. Events
// that arrive after the replay started are applied by the bulletin when it
// starts again, from its consumer group's offsets.
func Rebuild(ctx context.Context, deps platform.Deps, opts Options) (applied int, err error) {
	opts = opts.withDefaults()
	st, err := openStores(ctx, deps, RoleAll)
	if err != nil {
		return 0, err
	}
	if err := st.projections.Drop(ctx); err != nil {
		return 0, err
	}
	if err := st.feed.Drop(ctx); err != nil {
		return 0, err
	}
	if err := st.meta.RenewEpoch(ctx); err != nil {
		return 0, err
	}
	// the head names seqs of the old numbering; readers start again from
	// the new feed when restarted
	if err := st.renderings.Drop(ctx); err != nil {
		return 0, err
	}
	founded, err := st.meta.Founded(ctx, deps.Clock.Now())
	if err != nil {
		return 0, err
	}
	agg := app.NewAggregator(opts.World.WithDefaults(founded), st.projections, st.feed, app.NewHub(1, 1, telemetry.Observer{}), deps.Logger, telemetry.Observer{})
	applied, err = messages.Replay(ctx, deps.Brokers, catalog.AllTopics(), func(ctx context.Context, e events.Event) error {
		return apply(ctx, agg, e)
	})
	if err != nil {
		return applied, fmt.Errorf("rebuild: %w", err)
	}
	deps.Logger.Info("bulletin rebuilt", slog.Int("events", applied))
	return applied, nil
}
