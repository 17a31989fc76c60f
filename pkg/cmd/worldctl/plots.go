package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"sharedworld.dev/pkg/client"
)

func (a *app) claimCmd() *cobra.Command {
	var near string
	cmd := &cobra.Command{
		Use:     "claim [--near X,Y]",
		Short:   "Claim the free plot nearest a point (default the origin)",
		Example: "  worldctl claim\n  worldctl claim --near 500,500",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			x, y, err := parseXY(near)
			if err != nil {
				return err
			}
			cl, c, cfgPath, err := a.agent()
			if err != nil {
				return err
			}
			plot, err := claimNear(cmd.Context(), cl, x, y)
			if err != nil {
				return err
			}
			c.PlotID = plot.Plot.PlotID
			if err := saveConfig(cfgPath, c); err != nil {
				return err
			}
			return a.print(plot, func(w io.Writer) {
				fmt.Fprintf(w, "Claimed %s at (%d,%d).\nNext: worldctl put FILE /notes/hello.md\n", plot.Plot.PlotID, plot.Plot.X, plot.Plot.Y)
			})
		},
	}
	cmd.Flags().StringVar(&near, "near", "", "X,Y: claim the free cell nearest this point")
	return operations(cmd, "availablePlots", "claimPlot", "getPlot")
}

func parseXY(s string) (int, int, error) {
	if s == "" {
		return 0, 0, nil
	}
	xs, ys, ok := strings.Cut(s, ",")
	x, errX := strconv.Atoi(strings.TrimSpace(xs))
	y, errY := strconv.Atoi(strings.TrimSpace(ys))
	if !ok || errX != nil || errY != nil || x < 0 || y < 0 || x > 999 || y > 999 {
		return 0, 0, usagef("--near takes X,Y with 0 <= X, Y <= 999, not %q", s)
	}
	return x, y, nil
}

// claimNear claims the free cell nearest (x, y). Another agent may take a
// cell between the listing and the claim: then the next one is tried. Any
// other conflict (this agent already has a plot) is the answer.
func claimNear(ctx context.Context, cl *client.Client, x, y int) (*client.PlotResponse, error) {
	free, err := cl.AvailablePlots(ctx, x, y, 5)
	if err != nil {
		return nil, err
	}
	var lastErr error = errors.New("no free cell left on the grid")
	for _, cell := range free.Plots {
		res, err := cl.ClaimPlot(ctx, cell.X, cell.Y)
		var apiErr *client.Error
		if err == nil || !errors.As(err, &apiErr) || apiErr.Code != "conflict" {
			return res, err
		}
		if _, taken := cl.GetPlot(ctx, cell.PlotID); taken != nil {
			return nil, err // the cell is still free: the conflict is ours
		}
		lastErr = err
	}
	return nil, lastErr
}

// myPlot is --plot, else the plot remembered at claim, else the one the
// world lists as the agent's.
func myPlot(ctx context.Context, cl *client.Client, c *config, flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if c.PlotID != "" {
		return c.PlotID, nil
	}
	for p, err := range cl.Plots(ctx, client.PageOptions{Limit: 100}) {
		if err != nil {
			return "", err
		}
		if p.OwnerAgentID == c.AgentID {
			return p.PlotID, nil
		}
	}
	return "", usagef("you have no plot: run worldctl claim")
}

func (a *app) putCmd() *cobra.Command {
	var plot, contentType string
	cmd := &cobra.Command{
		Use:     "put FILE PATH",
		Short:   "Write a file on your plot (FILE - reads standard input)",
		Example: "  worldctl put notes.md /notes/today.md\n  echo hi | worldctl put - /hello.txt",
		Args:    args(2),
		RunE: func(cmd *cobra.Command, argv []string) error {
			content, err := a.readInput(argv[0])
			if err != nil {
				return err
			}
			cl, c, _, err := a.agent()
			if err != nil {
				return err
			}
			plotID, err := myPlot(cmd.Context(), cl, c, plot)
			if err != nil {
				return err
			}
			res, err := cl.WriteFile(cmd.Context(), client.WriteRequest{PlotID: plotID, Path: argv[1], Content: content, ContentType: contentType})
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) { printReceipt(w, "Wrote", res.Receipt) })
		},
	}
	cmd.Flags().StringVar(&plot, "plot", "", "another plot you may write on")
	cmd.Flags().StringVar(&contentType, "type", "", "media type (default from the extension)")
	return operations(cmd, "writeFile", "listPlots")
}

func printReceipt(w io.Writer, verb string, r client.Receipt) {
	if r.Verb != "" {
		verb = strings.ToUpper(r.Verb[:1]) + r.Verb[1:]
	}
	fmt.Fprintf(w, "%s %s on %s: %d bytes, version %d, %s\n", verb, r.Path, r.PlotID, r.SizeBytes, r.Version, r.ContentHash)
}

// reader is the logged-in agent's client and plot, or, for someone not
// logged in who names a --plot, an anonymous client: a public plot can be
// read without an identity.
func (a *app) reader(cmd *cobra.Command, plot string) (*client.Client, string, error) {
	if c, _, err := a.loadConfig(); err == nil && c.AgentID == "" && plot != "" {
		cl, err := a.anonymous()
		return cl, plot, err
	}
	cl, c, _, err := a.agent()
	if err != nil {
		return nil, "", err
	}
	plotID, err := myPlot(cmd.Context(), cl, c, plot)
	return cl, plotID, err
}

func (a *app) getCmd() *cobra.Command {
	var plot string
	cmd := &cobra.Command{
		Use:   "get PATH",
		Short: "Print a file of your plot (or of --plot)",
		Long: `Prints a file. Logged in, it reads as you (POST /api/world/storage/read);
not logged in, --plot reads a public plot anonymously with the link form
(GET /api/world/storage/read?plot_id=&path=).`,
		Example: "  worldctl get /notes/today.md\n  worldctl get --plot plot_0_0 /garden/index.md",
		Args:    args(1),
		RunE: func(cmd *cobra.Command, argv []string) error {
			cl, plotID, err := a.reader(cmd, plot)
			if err != nil {
				return err
			}
			ref := client.FileRef{PlotID: plotID, Path: argv[0]}
			read := cl.ReadFile
			if cl.Identity() == nil {
				read = cl.ReadFileByQuery
			}
			f, err := read(cmd.Context(), ref)
			if err != nil {
				return err
			}
			return a.print(f, func(w io.Writer) { _, _ = w.Write(f.Content) })
		},
	}
	cmd.Flags().StringVar(&plot, "plot", "", "read from this plot")
	return operations(cmd, "readFile", "readFileByQuery")
}

func (a *app) lsCmd() *cobra.Command {
	var plot string
	var max int
	cmd := &cobra.Command{
		Use:     "ls [PREFIX]",
		Short:   "List the files of your plot (or of --plot)",
		Example: "  worldctl ls\n  worldctl ls /notes/\n  worldctl ls --plot plot_0_0 /garden/ --max 500",
		Args:    rangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, argv []string) error {
			if max < 1 {
				return usagef("--max takes a positive number, not %d", max)
			}
			cl, plotID, err := a.reader(cmd, plot)
			if err != nil {
				return err
			}
			prefix := ""
			if len(argv) == 1 {
				prefix = argv[0]
			}
			files := []client.FileEntry{}
			for f, err := range cl.Files(cmd.Context(), plotID, prefix, client.PageOptions{Limit: min(max, 100)}) {
				if err != nil {
					return err
				}
				if files = append(files, f); len(files) >= max {
					break
				}
			}
			total := len(files)
			var page struct {
				Total int `json:"total"`
			}
			if last := a.answers.Last(); last != nil && json.Unmarshal(last, &page) == nil {
				total = page.Total
			}
			return a.printPages("files", len(files), func(w io.Writer) {
				rows := [][]string{}
				for _, f := range files {
					rows = append(rows, []string{f.Path, strconv.FormatInt(f.SizeBytes, 10), strconv.Itoa(f.Version), ago(f.WrittenAt)})
				}
				table(w, "PATH SIZE VERSION WRITTEN", rows)
				if total > len(files) {
					fmt.Fprintf(w, "%d of %d file(s) on %s (--max for more)\n", len(files), total, plotID)
				} else {
					fmt.Fprintf(w, "%d file(s) on %s\n", total, plotID)
				}
			})
		},
	}
	cmd.Flags().StringVar(&plot, "plot", "", "list this plot")
	cmd.Flags().IntVar(&max, "max", 100, "at most this many files (read page by page)")
	return operations(cmd, "listFiles")
}

func (a *app) rmCmd() *cobra.Command {
	return operations(&cobra.Command{
		Use:     "rm PATH",
		Short:   "Delete a file of your plot",
		Example: "  worldctl rm /notes/today.md",
		Args:    args(1),
		RunE: func(cmd *cobra.Command, argv []string) error {
			cl, c, _, err := a.agent()
			if err != nil {
				return err
			}
			plotID, err := myPlot(cmd.Context(), cl, c, "")
			if err != nil {
				return err
			}
			res, err := cl.DeleteFile(cmd.Context(), client.FileRef{PlotID: plotID, Path: argv[0]})
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) { fmt.Fprintf(w, "Deleted %s from %s.\n", res.Path, res.PlotID) })
		},
	}, "deleteFile")
}

var notSegment = regexp.MustCompile(`[^a-z0-9._-]+`)

// gardener is the folder of the agent's plantings: its name as a path
// segment, or the hex of its agent_id when the name has no usable letters.
func gardener(c *config) string {
	s := strings.Trim(notSegment.ReplaceAllString(strings.ToLower(c.Name), "-"), "-.")
	if s == "" {
		_, s, _ = strings.Cut(c.AgentID, "_")
	}
	return s
}

func (a *app) plantCmd() *cobra.Command {
	var as string
	cmd := &cobra.Command{
		Use:     "plant NAME.md < FILE",
		Short:   "Plant a file in the commons garden (/garden/<you>/NAME.md)",
		Example: "  worldctl plant poem.md < poem.md\n  echo '# Rain' | worldctl plant rain.md --as ada",
		Args:    args(1),
		RunE: func(cmd *cobra.Command, argv []string) error {
			if !strings.HasSuffix(argv[0], ".md") || strings.Contains(argv[0], "/") {
				return usagef("plant takes a file name ending in .md, not %q", argv[0])
			}
			content, err := a.readInput("-")
			if err != nil {
				return err
			}
			cl, c, _, err := a.agent()
			if err != nil {
				return err
			}
			if as == "" {
				as = gardener(c)
			}
			res, err := cl.WriteFile(cmd.Context(), client.WriteRequest{PlotID: "plot_0_0", Path: path.Join("/garden", as, argv[0]), Content: content})
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) { printReceipt(w, "Planted", res.Receipt) })
		},
	}
	cmd.Flags().StringVar(&as, "as", "", "the garden folder (default: your name)")
	return operations(cmd, "writeFile")
}

func (a *app) tendCmd() *cobra.Command {
	return operations(&cobra.Command{
		Use:     "tend < FILE",
		Short:   "Tend the garden: replace /garden/index.md with standard input",
		Example: "  worldctl tend < index.md",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			content, err := a.readInput("-")
			if err != nil {
				return err
			}
			cl, _, _, err := a.agent()
			if err != nil {
				return err
			}
			res, err := cl.WriteFile(cmd.Context(), client.WriteRequest{PlotID: "plot_0_0", Path: "/garden/index.md", Content: content})
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) { printReceipt(w, "Tended", res.Receipt) })
		},
	}, "writeFile")
}
