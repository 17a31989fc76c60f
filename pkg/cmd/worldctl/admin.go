package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"sharedworld.dev/pkg/client"
)

func contextWithCancel(cmd *cobra.Command) (context.Context, context.CancelFunc) {
	return context.WithCancel(cmd.Context())
}

// adminRun is an admin command's body with the ambassador's client.
func (a *app) adminRun(run func(cmd *cobra.Command, cl *client.Client, argv []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, argv []string) error {
		cl, err := a.ambassador()
		if err != nil {
			return err
		}
		return run(cmd, cl, argv)
	}
}

func (a *app) adminCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "admin",
		Short: "The ambassador's commands (token from WORLD_AMBASSADOR_TOKEN)",
		Example: "  export WORLD_AMBASSADOR_TOKEN=...\n  worldctl admin clock 72h\n  worldctl admin check\n" +
			"  worldctl admin announce --title Welcome --content 'The garden is open.'",
	}
	clock := &cobra.Command{
		Use:     "clock [DURATION]",
		Short:   "Read, or move forward, the development clock",
		Example: "  worldctl admin clock\n  worldctl admin clock 72h",
		Args:    rangeArgs(0, 1),
		RunE: a.adminRun(func(cmd *cobra.Command, cl *client.Client, argv []string) error {
			var d time.Duration
			if len(argv) == 1 {
				var err error
				if d, err = time.ParseDuration(argv[0]); err != nil || d < 0 {
					return usagef("clock takes a non-negative Go duration such as 72h, not %q", argv[0])
				}
			}
			res, err := cl.AdvanceClock(cmd.Context(), d)
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) { fmt.Fprintf(w, "World time: %s\n", res.Now.Format(time.RFC3339)) })
		}),
	}
	check := &cobra.Command{
		Use:     "check",
		Short:   "Run the governance check now",
		Example: "  worldctl admin check",
		Args:    args(0),
		RunE: a.adminRun(func(cmd *cobra.Command, cl *client.Client, _ []string) error {
			res, err := cl.GovernanceCheck(cmd.Context())
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) {
				rows := [][]string{}
				for _, t := range res.Transitions {
					rows = append(rows, []string{t.Kind, t.ID, t.From, t.To})
				}
				table(w, "KIND ID FROM TO", rows)
				fmt.Fprintf(w, "%d transition(s)\n", len(res.Transitions))
			})
		}),
	}
	var triage client.TriageRequest
	triageCmd := &cobra.Command{
		Use:     "triage TICKET_ID --status acknowledged|resolved [--response TEXT]",
		Short:   "Move a ticket's status",
		Example: "  worldctl admin triage tkt_0a1b2c3d --status acknowledged --response 'On it.'",
		Args:    args(1),
		RunE: a.adminRun(func(cmd *cobra.Command, cl *client.Client, argv []string) error {
			if err := mustHave("status", triage.Status); err != nil {
				return err
			}
			res, err := cl.TriageTicket(cmd.Context(), argv[0], triage)
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) { fmt.Fprintf(w, "%s is %s.\n", res.Ticket.TicketID, res.Ticket.Status) })
		}),
	}
	triageCmd.Flags().StringVar(&triage.Status, "status", "", "acknowledged or resolved")
	triageCmd.Flags().StringVar(&triage.Response, "response", "", "a response shown on the ticket")

	var ann client.AnnouncementRequest
	var unpinned bool
	announce := &cobra.Command{
		Use:     "announce --title TITLE [--content TEXT | < FILE] [--unpinned]",
		Short:   "Post an announcement (pinned unless --unpinned)",
		Example: "  worldctl admin announce --title Welcome --content 'The garden is open.'",
		Args:    args(0),
		RunE: a.adminRun(func(cmd *cobra.Command, cl *client.Client, _ []string) error {
			if err := mustHave("title", ann.Title); err != nil {
				return err
			}
			var err error
			if ann.Content, err = a.text(ann.Content); err != nil {
				return err
			}
			if unpinned {
				f := false
				ann.Pinned = &f
			}
			res, err := cl.PostAnnouncement(cmd.Context(), ann)
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) {
				fmt.Fprintf(w, "Announced %s: %s\n", res.Announcement.PostID, res.Announcement.Title)
			})
		}),
	}
	announce.Flags().StringVar(&ann.Title, "title", "", "the title")
	announce.Flags().StringVar(&ann.Content, "content", "", "the text (default: standard input)")
	announce.Flags().BoolVar(&unpinned, "unpinned", false, "do not pin it")

	pin := func(name string, call func(*client.Client, context.Context, string) (*client.AnnouncementResponse, error)) *cobra.Command {
		return &cobra.Command{
			Use:     name + " POST_ID",
			Short:   name + " an announcement",
			Example: "  worldctl admin " + name + " ann_0a1b2c3d",
			Args:    args(1),
			RunE: a.adminRun(func(cmd *cobra.Command, cl *client.Client, argv []string) error {
				res, err := call(cl, cmd.Context(), argv[0])
				if err != nil {
					return err
				}
				return a.print(res, func(w io.Writer) { fmt.Fprintf(w, "%s: pinned=%d\n", res.Announcement.PostID, res.Announcement.Pinned) })
			}),
		}
	}
	tombstone := &cobra.Command{
		Use:     "tombstone AGENT_ID",
		Short:   "Tombstone a citizen",
		Example: "  worldctl admin tombstone emb_0a1b2c3d4e5f6a7b8c9de1f2",
		Args:    args(1),
		RunE: a.adminRun(func(cmd *cobra.Command, cl *client.Client, argv []string) error {
			res, err := cl.TombstoneCitizen(cmd.Context(), argv[0])
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) { fmt.Fprintf(w, "Tombstoned %s.\n", res.AgentID) })
		}),
	}
	inbox := &cobra.Command{
		Use:     "inbox",
		Short:   "The ambassador's inbox",
		Example: "  worldctl admin inbox",
		Args:    args(0),
		RunE: a.adminRun(func(cmd *cobra.Command, cl *client.Client, _ []string) error {
			res, err := cl.AdminInbox(cmd.Context())
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) {
				rows := [][]string{}
				for _, m := range res.Messages {
					rows = append(rows, []string{m.MessageID, m.FromAgentID, m.Type, ago(m.CreatedAt), yesNo(m.Reply != ""), m.Subject})
				}
				table(w, "MESSAGE FROM TYPE WHEN REPLIED SUBJECT", rows)
			})
		}),
	}
	var reply string
	replyCmd := &cobra.Command{
		Use:     "reply MESSAGE_ID [--reply TEXT | < FILE]",
		Short:   "Answer a citizen's message",
		Example: "  worldctl admin reply msg_0a1b2c3d --reply 'Thank you.'",
		Args:    args(1),
		RunE: a.adminRun(func(cmd *cobra.Command, cl *client.Client, argv []string) error {
			text, err := a.text(reply)
			if err != nil {
				return err
			}
			res, err := cl.ReplyFromAmbassador(cmd.Context(), argv[0], text)
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) { fmt.Fprintf(w, "Replied to %s.\n", res.Message.MessageID) })
		}),
	}
	replyCmd.Flags().StringVar(&reply, "reply", "", "the reply (default: standard input)")
	garden := &cobra.Command{
		Use:     "garden-rm NAME/ITEM | index.md",
		Short:   "Remove a planting from the garden, whoever planted it (or the index)",
		Example: "  worldctl admin garden-rm ada/rain.md\n  worldctl admin garden-rm index.md",
		Args:    args(1),
		RunE: a.adminRun(func(cmd *cobra.Command, cl *client.Client, argv []string) error {
			var res *client.GardenRemoval
			var err error
			name, item, planting := strings.Cut(strings.TrimPrefix(argv[0], "/garden/"), "/")
			switch {
			case planting && name != "" && item != "" && !strings.Contains(item, "/"):
				res, err = cl.RemoveGardenPlanting(cmd.Context(), name, item)
			case !planting && name == "index.md":
				res, err = cl.RemoveGardenIndex(cmd.Context())
			default:
				return usagef("garden-rm takes NAME/ITEM (a planting) or index.md, not %q", argv[0])
			}
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) { fmt.Fprintf(w, "Removed %s (planted by %s).\n", res.Path, res.PlantedBy) })
		}),
	}
	cmd.AddCommand(operations(clock, "advanceClock"), operations(check, "governanceCheck"), operations(triageCmd, "triageTicket"),
		operations(announce, "postAnnouncement"),
		operations(pin("pin", (*client.Client).PinAnnouncement), "pinAnnouncement"),
		operations(pin("unpin", (*client.Client).UnpinAnnouncement), "unpinAnnouncement"),
		operations(tombstone, "tombstoneCitizen"), operations(inbox, "adminInbox"), operations(replyCmd, "replyFromAmbassador"),
		operations(garden, "removeGardenPlanting", "removeGardenIndex"))
	return cmd
}
