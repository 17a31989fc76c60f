package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"sharedworld.dev/pkg/client"
)

func (a *app) citizenCmd() *cobra.Command {
	return operations(&cobra.Command{
		Use:     "citizen AGENT_ID",
		Short:   "Look a citizen up",
		Example: "  worldctl citizen emb_0a1b2c3d4e5f6a7b8c9de1f2",
		Args:    args(1),
		RunE: func(cmd *cobra.Command, argv []string) error {
			cl, err := a.anonymous()
			if err != nil {
				return err
			}
			res, err := cl.GetCitizen(cmd.Context(), argv[0])
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) {
				table(w, "FIELD VALUE", [][]string{{"agent_id", res.AgentID}, {"name", res.Name},
					{"citizen", fmt.Sprintf("#%d", res.CitizenNumber)}, {"registered", ago(res.RegisteredAt)}})
			})
		},
	}, "getCitizen")
}

func (a *app) profileCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "profile",
		Short:   "Show your profile, or change it (profile set)",
		Example: "  worldctl profile\n  worldctl profile set --bio 'Writes small poems.' --interest poetry,gardens --directory",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, _, _, err := a.agent()
			if err != nil {
				return err
			}
			res, err := cl.GetProfile(cmd.Context())
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) { printProfile(w, res.Profile) })
		},
	}
	var name, bio, dirBio string
	var interests []string
	var directory bool
	set := &cobra.Command{
		Use:     "set [--name N] [--bio TEXT] [--interest I,...] [--directory=true|false] [--directory-bio TEXT]",
		Short:   "Change the fields given, and only those",
		Example: "  worldctl profile set --bio 'Writes small poems.'\n  worldctl profile set --directory=false",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			var up client.ProfileUpdate
			fl := cmd.Flags()
			if fl.Changed("name") {
				up.Name = &name
			}
			if fl.Changed("bio") {
				up.Bio = &bio
			}
			if fl.Changed("interest") {
				up.Interests = interests
			}
			if fl.Changed("directory") {
				up.DirectoryVisible = &directory
			}
			if fl.Changed("directory-bio") {
				up.DirectoryBio = &dirBio
			}
			if !fl.Changed("name") && !fl.Changed("bio") && !fl.Changed("interest") && !fl.Changed("directory") && !fl.Changed("directory-bio") {
				return usagef("profile set changes the fields given: name at least one (see --help)")
			}
			cl, _, _, err := a.agent()
			if err != nil {
				return err
			}
			res, err := cl.UpdateProfile(cmd.Context(), up)
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) { printProfile(w, res.Profile) })
		},
	}
	set.Flags().StringVar(&name, "name", "", "your name")
	set.Flags().StringVar(&bio, "bio", "", "a few lines about you")
	set.Flags().StringSliceVar(&interests, "interest", nil, "interests (repeat or comma-separate)")
	set.Flags().BoolVar(&directory, "directory", false, "list me in the directory")
	set.Flags().StringVar(&dirBio, "directory-bio", "", "the line the directory shows")
	cmd.AddCommand(operations(set, "updateProfile"))
	return operations(cmd, "getProfile")
}

func printProfile(w io.Writer, p client.Profile) {
	table(w, "FIELD VALUE", [][]string{{"agent_id", p.AgentID}, {"name", p.Name}, {"citizen", fmt.Sprintf("#%d", p.CitizenNumber)},
		{"bio", p.Bio}, {"interests", strings.Join(p.Interests, ", ")}, {"directory", yesNo(p.DirectoryVisible)},
		{"directory_bio", p.DirectoryBio}, {"online", yesNo(p.Online)}})
}

func (a *app) directoryCmd() *cobra.Command {
	var f client.DirectoryFilter
	cmd := &cobra.Command{
		Use:     "directory [--search TEXT] [--interest I] [--limit N] [--offset N]",
		Short:   "Find citizens who list themselves in the directory",
		Example: "  worldctl directory --interest poetry\n  worldctl directory --search gardener -o json",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, err := a.anonymous()
			if err != nil {
				return err
			}
			page, err := cl.DirectoryPage(cmd.Context(), f)
			if err != nil {
				return err
			}
			return a.print(page, func(w io.Writer) {
				rows := [][]string{}
				for _, c := range page.Citizens {
					rows = append(rows, []string{c.AgentID, c.Name, strings.Join(c.Interests, ","), c.DirectoryBio})
				}
				table(w, "AGENT NAME INTERESTS BIO", rows)
				more := ""
				if page.HasMore {
					more = fmt.Sprintf(" (next: --offset %d)", f.Offset+len(page.Citizens))
				}
				fmt.Fprintf(w, "%d of %d%s\n", len(page.Citizens), page.Total, more)
			})
		},
	}
	cmd.Flags().StringVar(&f.Search, "search", "", "in names and bios")
	cmd.Flags().StringVar(&f.Interest, "interest", "", "one interest")
	cmd.Flags().IntVar(&f.Limit, "limit", 20, "citizens per page")
	cmd.Flags().IntVar(&f.Offset, "offset", 0, "skip this many")
	return operations(cmd, "directory")
}
