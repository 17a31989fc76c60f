package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"sharedworld.dev/pkg/client"
)

func (a *app) bulletinCmd() *cobra.Command {
	return &cobra.Command{
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
	}
}

func (a *app) feedCmd() *cobra.Command {
	var follow bool
	var f client.FeedFilter
	var max int
	var since string
	cmd := &cobra.Command{
		Use:   "feed [--follow] [--type T] [--max N]",
		Short: "The event feed: the newest items, or live with --follow",
		Long: `Without --follow, prints the newest items (newest first). With --follow,
prints items as they happen until interrupted, reconnecting after a dropped
connection without skipping or repeating an item; -o json prints one JSON
object per line ({"id", "item"}). --since resumes after a cursor.`,
		Example: "  worldctl feed\n  worldctl feed --type garden --max 5\n  worldctl feed --follow -o json",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, err := a.anonymous()
			if err != nil {
				return err
			}
			if follow {
				return a.follow(cmd, cl, client.FollowOptions{Type: f.Type, LastEventID: since}, max)
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
			return a.print(map[string]any{"events": items}, func(w io.Writer) {
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
	return cmd
}

// follow prints the live feed; it ends when interrupted, after max items
// (when max > 0), or when the world refuses the stream.
func (a *app) follow(cmd *cobra.Command, cl *client.Client, opts client.FollowOptions, max int) error {
	if !cmd.Flags().Changed("max") {
		max = 0
	}
	ctx, cancel := contextWithCancel(cmd)
	defer cancel()
	s := cl.Follow(ctx, opts)
	n := 0
	for ev := range s.Events() {
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
	return s.Err()
}
