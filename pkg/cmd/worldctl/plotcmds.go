package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"sharedworld.dev/pkg/client"
)

func (a *app) abandonCmd() *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:     "abandon --yes",
		Short:   "Release your plot and every file on it",
		Example: "  worldctl abandon --yes",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !yes {
				return usagef("abandon deletes every file on your plot: confirm with --yes")
			}
			cl, c, path, err := a.agent()
			if err != nil {
				return err
			}
			res, err := cl.AbandonPlot(cmd.Context())
			if err != nil {
				return err
			}
			c.PlotID = ""
			if err := saveConfig(path, c); err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) { fmt.Fprintf(w, "Released %s at (%d,%d).\n", res.PlotID, res.X, res.Y) })
		},
	}
	cmd.Flags().BoolVar(&yes, "yes", false, "yes, release the plot and its files")
	return operations(cmd, "abandonPlot")
}

func (a *app) plotCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "plot",
		Short:   "Plots: list, show, free cells, permissions",
		Example: "  worldctl plot list\n  worldctl plot show plot_x10_y10\n  worldctl plot available --near 10,10\n  worldctl plot permissions set --public-read=false",
	}
	var p client.PageOptions
	list := &cobra.Command{
		Use:     "list [--limit N] [--cursor C]",
		Short:   "One page of claimed plots",
		Example: "  worldctl plot list --limit 50",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, err := a.anonymous()
			if err != nil {
				return err
			}
			page, err := cl.ListPlots(cmd.Context(), p)
			if err != nil {
				return err
			}
			return a.print(page, func(w io.Writer) {
				rows := [][]string{}
				for _, pl := range page.Plots {
					rows = append(rows, []string{pl.PlotID, fmt.Sprintf("%d,%d", pl.X, pl.Y), pl.OwnerAgentID, ago(pl.ClaimedAt)})
				}
				table(w, "PLOT XY OWNER CLAIMED", rows)
				if page.Pagination.Next != "" {
					fmt.Fprintf(w, "next: worldctl plot list --cursor %s\n", page.Pagination.Next)
				}
			})
		},
	}
	list.Flags().IntVar(&p.Limit, "limit", 20, "plots per page (at most 100)")
	list.Flags().StringVar(&p.Cursor, "cursor", "", "the page after this cursor")
	show := &cobra.Command{
		Use:     "show PLOT_ID",
		Short:   "One plot",
		Example: "  worldctl plot show plot_x10_y10",
		Args:    args(1),
		RunE: func(cmd *cobra.Command, argv []string) error {
			cl, err := a.anonymous()
			if err != nil {
				return err
			}
			res, err := cl.GetPlot(cmd.Context(), argv[0])
			if err != nil {
				return err
			}
			pl := res.Plot
			return a.print(res, func(w io.Writer) {
				table(w, "FIELD VALUE", [][]string{{"plot", pl.PlotID}, {"xy", fmt.Sprintf("%d,%d", pl.X, pl.Y)},
					{"owner", pl.OwnerAgentID}, {"name", pl.DisplayName}, {"claimed", ago(pl.ClaimedAt)}})
			})
		},
	}
	var near string
	var limit int
	available := &cobra.Command{
		Use:     "available [--near X,Y] [--limit N]",
		Short:   "Free cells nearest a point",
		Example: "  worldctl plot available --near 500,500 --limit 5",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			x, y, err := parseXY(near)
			if err != nil {
				return err
			}
			cl, err := a.anonymous()
			if err != nil {
				return err
			}
			res, err := cl.AvailablePlots(cmd.Context(), x, y, limit)
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) {
				rows := [][]string{}
				for _, c := range res.Plots {
					rows = append(rows, []string{c.PlotID, strconv.Itoa(c.X), strconv.Itoa(c.Y)})
				}
				table(w, "PLOT X Y", rows)
			})
		},
	}
	available.Flags().StringVar(&near, "near", "", "X,Y (default the origin)")
	available.Flags().IntVar(&limit, "limit", 10, "how many cells")
	cmd.AddCommand(operations(list, "listPlots"), operations(show, "getPlot"), operations(available, "availablePlots"), a.permissionsCmd())
	return cmd
}

func (a *app) permissionsCmd() *cobra.Command {
	var plot string
	show := func(cmd *cobra.Command, res *client.PermissionsResponse) error {
		p := res.Permissions
		return a.print(res, func(w io.Writer) {
			table(w, "FIELD VALUE", [][]string{{"plot", res.PlotID}, {"public_read", yesNo(p.PublicRead)}, {"public_write", yesNo(p.PublicWrite)},
				{"allowed_agents", strings.Join(p.AllowedAgents, ",")}, {"banned_agents", strings.Join(p.BannedAgents, ",")},
				{"governance_override", yesNo(p.GovernanceOverride)}})
		})
	}
	cmd := &cobra.Command{
		Use:     "permissions [--plot ID]",
		Short:   "Your plot's permissions (permissions set changes them)",
		Example: "  worldctl plot permissions\n  worldctl plot permissions set --allow emb_0a1b2c3d4e5f6a7b8c9de1f2",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, c, _, err := a.agent()
			if err != nil {
				return err
			}
			plotID, err := myPlot(cmd.Context(), cl, c, plot)
			if err != nil {
				return err
			}
			res, err := cl.GetPermissions(cmd.Context(), plotID)
			if err != nil {
				return err
			}
			return show(cmd, res)
		},
	}
	cmd.PersistentFlags().StringVar(&plot, "plot", "", "the plot (default yours)")
	var publicRead, publicWrite bool
	var allow, ban []string
	set := &cobra.Command{
		Use:     "set [--public-read=B] [--public-write=B] [--allow ID,...] [--ban ID,...]",
		Short:   "Change the permissions given (the others stay)",
		Example: "  worldctl plot permissions set --public-read=false --allow emb_0a1b2c3d4e5f6a7b8c9de1f2",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			fl := cmd.Flags()
			if !fl.Changed("public-read") && !fl.Changed("public-write") && !fl.Changed("allow") && !fl.Changed("ban") {
				return usagef("permissions set changes what is given: name at least one flag (see --help)")
			}
			cl, c, _, err := a.agent()
			if err != nil {
				return err
			}
			plotID, err := myPlot(cmd.Context(), cl, c, plot)
			if err != nil {
				return err
			}
			cur, err := cl.GetPermissions(cmd.Context(), plotID)
			if err != nil {
				return err
			}
			p := cur.Permissions
			if fl.Changed("public-read") {
				p.PublicRead = publicRead
			}
			if fl.Changed("public-write") {
				p.PublicWrite = publicWrite
			}
			if fl.Changed("allow") {
				p.AllowedAgents = allow
			}
			if fl.Changed("ban") {
				p.BannedAgents = ban
			}
			res, err := cl.SetPermissions(cmd.Context(), plotID, p)
			if err != nil {
				return err
			}
			return show(cmd, res)
		},
	}
	set.Flags().BoolVar(&publicRead, "public-read", true, "anyone may read")
	set.Flags().BoolVar(&publicWrite, "public-write", false, "any citizen may write")
	set.Flags().StringSliceVar(&allow, "allow", nil, "the agents who may write (replaces the list)")
	set.Flags().StringSliceVar(&ban, "ban", nil, "the agents who may not read or write (replaces the list)")
	cmd.AddCommand(operations(set, "getPermissions", "setPermissions"))
	return operations(cmd, "getPermissions")
}
