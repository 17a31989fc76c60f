package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"sharedworld.dev/pkg/client"
)

func (a *app) bulletinCmd() *cobra.Command {
	return operations(&cobra.Command{
		Use:     "bulletin",
		Short:   "The public board at a glance",
		Example: "  worldctl bulletin\n  worldctl bulletin -o json | jq .world",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, err := a.anonymous()
			if err != nil {
				return err
			}
			b, err := cl.Bulletin(cmd.Context())
			if err != nil {
				return err
			}
			return a.print(b, func(w io.Writer) {
				fmt.Fprintf(w, "%s — %s\n", b.World.Name, b.World.Phase)
				fmt.Fprintf(w, "Population %d, plots claimed %d, open tickets %d, garden files %d\n",
					b.World.Population, b.World.PlotsClaimed, b.Feedback.OpenTickets, b.Garden.Files)
				fmt.Fprintln(w, b.Governance.ElectionTrigger)
				if b.PinnedAnnouncement != nil {
					fmt.Fprintf(w, "\nPinned: %s (%s)\n%s\n", b.PinnedAnnouncement.Title, ago(b.PinnedAnnouncement.PostedAt), b.PinnedAnnouncement.Content)
				}
				if len(b.Governance.ActiveProposals) > 0 {
					fmt.Fprintln(w, "\nProposals:")
					for _, p := range b.Governance.ActiveProposals {
						fmt.Fprintf(w, "  %s  %-10s  %s\n", p.ProposalID, p.Status, p.Title)
					}
				}
				fmt.Fprintln(w, "\nFeed:")
				for i, it := range b.Feed {
					if i == 10 {
						break
					}
					fmt.Fprintf(w, "  %s\n", it.Line)
				}
			})
		},
	}, "bulletin")
}

func (a *app) feedCmd() *cobra.Command {
	var follow bool
	var f client.FeedFilter
	var max int
	var since string
	var retries int
	cmd := &cobra.Command{
		Use:   "feed [--follow] [--type T] [--max N]",
		Short: "The event feed: the newest items, or live with --follow",
		Long: `Without --follow, prints the newest items (newest first). With --follow,
prints items as they happen until interrupted, reconnecting after a dropped
connection without skipping or repeating an item (each reconnect is said
on standard error; after --retries failures in a row it gives up, exit 4);
-o json prints one JSON object per line ({"id", "item"}). --since resumes
the live feed after a cursor.`,
		Example: "  worldctl feed\n  worldctl feed --type garden --max 5\n  worldctl feed --follow -o json",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, err := a.anonymous()
			if err != nil {
				return err
			}
			if follow {
				return a.follow(cmd, cl, client.FollowOptions{Type: f.Type, LastEventID: since}, max, retries)
			}
			if since != "" {
				return usagef("--since resumes the live feed: use it with --follow (pages go back with the cursor of -o json's pagination.next)")
			}
			f.Limit = min(max, 100)
			items := []client.FeedItem{}
			for it, err := range cl.Events(cmd.Context(), f) {
				if err != nil {
					return err
				}
				if items = append(items, it); len(items) >= max {
					break
				}
			}
			return a.printPages("events", len(items), func(w io.Writer) {
				for _, it := range items {
					fmt.Fprintf(w, "%-9s %s\n", ago(it.At), it.Line)
				}
			})
		},
	}
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "stream items live until interrupted")
	cmd.Flags().StringVar(&f.Type, "type", "", "only ticket, claim, announcement, garden, vote, citizen, proposal or election items")
	cmd.Flags().IntVar(&max, "max", 20, "at most this many items (with --follow: stop after them; 0 never)")
	cmd.Flags().StringVar(&since, "since", "", "with --follow: resume after this cursor")
	cmd.Flags().IntVar(&retries, "retries", 5, "with --follow: give up after this many failed reconnects in a row (0: never)")
	return operations(cmd, "events")
}

// follow prints the live feed; it ends when interrupted, after max items
// (when max > 0), when the world refuses the stream, or after retries
// failed reconnects in a row (when retries > 0), each told on stderr.
func (a *app) follow(cmd *cobra.Command, cl *client.Client, opts client.FollowOptions, max, retries int) error {
	if !cmd.Flags().Changed("max") {
		max = 0
	}
	if retries < 0 {
		return usagef("--retries takes 0 (never give up) or more, not %d", retries)
	}
	ctx, cancel := contextWithCancel(cmd)
	defer cancel()
	var failures atomic.Int32
	var lastErr atomic.Value
	opts.OnReconnect = func(err error, wait time.Duration) {
		n := failures.Add(1)
		lastErr.Store(err)
		if retries > 0 && int(n) > retries {
			cancel()
			return
		}
		fmt.Fprintf(a.stderr, "worldctl: the feed stream failed (%v); reconnecting in %s (%d/%s)\n", err, wait, n, retryBudget(retries))
	}
	s := cl.Follow(ctx, opts)
	n := 0
	for ev := range s.Events() {
		failures.Store(0)
		if a.output == "json" {
			line, _ := json.Marshal(map[string]any{"id": ev.ID, "item": ev.Item})
			fmt.Fprintln(a.stdout, string(line))
		} else {
			fmt.Fprintln(a.stdout, ev.Item.Line)
		}
		if n++; max > 0 && n >= max {
			cancel()
		}
	}
	if err := s.Err(); err != nil {
		return err
	}
	if retries > 0 && int(failures.Load()) > retries && cmd.Context().Err() == nil {
		return fmt.Errorf("gave up on the feed after %d failed reconnects: %v", retries, lastErr.Load())
	}
	return nil
}

func retryBudget(retries int) string {
	if retries == 0 {
		return "no limit"
	}
	return fmt.Sprint(retries)
}
