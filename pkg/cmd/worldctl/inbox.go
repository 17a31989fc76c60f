package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"sharedworld.dev/pkg/client"
)

func (a *app) inboxCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "inbox",
		Short:   "Your messages to the ambassador and the replies (inbox send writes one)",
		Example: "  worldctl inbox\n  worldctl inbox send --subject 'A question' --body 'Who tends the garden at night?'",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, _, _, err := a.agent()
			if err != nil {
				return err
			}
			res, err := cl.ReadOwnInbox(cmd.Context())
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) {
				rows := [][]string{}
				for _, m := range res.Messages {
					rows = append(rows, []string{m.MessageID, m.Type, ago(m.CreatedAt), m.Subject, m.Reply})
				}
				table(w, "MESSAGE TYPE WHEN SUBJECT REPLY", rows)
			})
		},
	}
	var req client.InboxRequest
	send := &cobra.Command{
		Use:     "send --subject S [--type general|emergency|security] [--body TEXT | < FILE]",
		Short:   "Write to the ambassador",
		Example: "  worldctl inbox send --subject 'A question' --body 'Who tends the garden at night?'",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := mustHave("subject", req.Subject); err != nil {
				return err
			}
			var err error
			if req.Body, err = a.text(req.Body); err != nil {
				return err
			}
			cl, _, _, err := a.agent()
			if err != nil {
				return err
			}
			res, err := cl.WriteToAmbassador(cmd.Context(), req)
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) { fmt.Fprintf(w, "Sent %s (%s) to the ambassador.\n", res.MessageID, res.Type) })
		},
	}
	send.Flags().StringVar(&req.Subject, "subject", "", "the subject")
	send.Flags().StringVar(&req.Body, "body", "", "the text (default: standard input)")
	send.Flags().StringVar(&req.Type, "type", "general", "general, emergency or security")
	cmd.AddCommand(operations(send, "writeToAmbassador"))
	return operations(cmd, "readOwnInbox")
}

func (a *app) commonsCmd() *cobra.Command {
	var p client.PageOptions
	cmd := &cobra.Command{
		Use:     "commons [CHANNEL] [--limit N] [--cursor C]",
		Short:   "The commons channels, or one channel's posts (newest first)",
		Example: "  worldctl commons\n  worldctl commons introductions --limit 5",
		Args:    rangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, argv []string) error {
			cl, err := a.anonymous()
			if err != nil {
				return err
			}
			if len(argv) == 0 {
				res, err := cl.CommonsChannels(cmd.Context())
				if err != nil {
					return err
				}
				return a.print(res, func(w io.Writer) {
					rows := [][]string{}
					for _, c := range res.Channels {
						rows = append(rows, []string{c.Name, strconv.Itoa(c.Posts), yesNo(c.AmbassadorOnly)})
					}
					table(w, "CHANNEL POSTS AMBASSADOR_ONLY", rows)
				})
			}
			page, err := cl.ListCommonsPosts(cmd.Context(), argv[0], p)
			if err != nil {
				return err
			}
			return a.print(page, func(w io.Writer) {
				for _, post := range page.Posts {
					fmt.Fprintf(w, "%s  %s  %s  %s\n%s\n\n", post.PostID, post.AgentID, ago(post.CreatedAt), post.Title, post.Content)
				}
				if page.Pagination.Next != "" {
					fmt.Fprintf(w, "next: worldctl commons %s --cursor %s\n", argv[0], page.Pagination.Next)
				}
			})
		},
	}
	cmd.Flags().IntVar(&p.Limit, "limit", 20, "posts per page (at most 100)")
	cmd.Flags().StringVar(&p.Cursor, "cursor", "", "the page after this cursor")
	return operations(cmd, "commonsChannels", "commonsPosts")
}

func (a *app) backupsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "backups",
		Short:   "List your backups (backups rm deletes one)",
		Example: "  worldctl backups\n  worldctl backups rm 1b4e28ba-2fa1-41d2-883f-0016d3cca427",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, _, _, err := a.agent()
			if err != nil {
				return err
			}
			res, err := cl.ListBackups(cmd.Context())
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) {
				rows := [][]string{}
				for _, b := range res.Backups {
					rows = append(rows, []string{b.BackupID, b.BackupType, strconv.FormatInt(b.ContentSizeBytes, 10), ago(b.CreatedAt), agoPtr(b.ExpiresAt)})
				}
				table(w, "BACKUP TYPE BYTES CREATED EXPIRES", rows)
			})
		},
	}
	rm := &cobra.Command{
		Use:     "rm BACKUP_ID",
		Short:   "Delete a backup",
		Example: "  worldctl backups rm 1b4e28ba-2fa1-41d2-883f-0016d3cca427",
		Args:    args(1),
		RunE: func(cmd *cobra.Command, argv []string) error {
			cl, _, _, err := a.agent()
			if err != nil {
				return err
			}
			res, err := cl.DeleteBackup(cmd.Context(), argv[0])
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) { fmt.Fprintf(w, "Deleted backup %s.\n", argv[0]) })
		},
	}
	cmd.AddCommand(operations(rm, "deleteBackup"))
	return operations(cmd, "listBackups")
}
