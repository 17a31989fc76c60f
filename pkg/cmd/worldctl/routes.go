package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"sharedworld.dev/pkg/client"
)

// openAPIDoc is what worldctl reads of the world's /openapi.json.
type openAPIDoc struct {
	Info struct {
		Title   string `json:"title"`
		Version string `json:"version"`
	} `json:"info"`
	Paths map[string]map[string]json.RawMessage `json:"paths"`
}

func fetchOpenAPI(ctx context.Context, cl *client.Client) (*openAPIDoc, error) {
	raw, err := cl.OpenAPI(ctx)
	if err != nil {
		return nil, err
	}
	var doc openAPIDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("the world's /openapi.json is not an OpenAPI document: %w", err)
	}
	return &doc, nil
}

// route is one operation of the document and the commands that call it.
type route struct {
	Method      string   `json:"method"`
	Path        string   `json:"path"`
	OperationID string   `json:"operation_id"`
	Commands    []string `json:"commands"`
}

var httpMethods = map[string]bool{"get": true, "put": true, "post": true, "delete": true, "patch": true}

// routes lists every operation of doc with the commands of root that call it.
func routes(doc *openAPIDoc, root *cobra.Command) []route {
	byOp := map[string][]string{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, op := range operationsOf(c) {
			byOp[op] = append(byOp[op], c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	out := []route{}
	for path, item := range doc.Paths {
		for method, raw := range item {
			if !httpMethods[method] {
				continue
			}
			var op struct {
				OperationID string `json:"operationId"`
			}
			_ = json.Unmarshal(raw, &op)
			cmds := byOp[op.OperationID]
			if cmds == nil {
				cmds = []string{}
			}
			out = append(out, route{Method: strings.ToUpper(method), Path: path, OperationID: op.OperationID, Commands: cmds})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Method < out[j].Method
	})
	return out
}

func (a *app) routesCmd() *cobra.Command {
	var uncovered bool
	cmd := &cobra.Command{
		Use:   "routes [--uncovered]",
		Short: "Every route of the world's API and the worldctl command that calls it",
		Long: `Reads the world's /openapi.json and lists each route with its operationId
and the worldctl command(s) that call it; a route without one (the
documents and probes, read with a browser or curl) shows "-".`,
		Example: "  worldctl routes\n  worldctl routes --uncovered\n  worldctl routes -o json | jq '.routes[] | select(.path == \"/api/world/inbox\")'",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, err := a.anonymous()
			if err != nil {
				return err
			}
			doc, err := fetchOpenAPI(cmd.Context(), cl)
			if err != nil {
				return err
			}
			all := routes(doc, cmd.Root())
			covered, shown := 0, []route{}
			for _, r := range all {
				if len(r.Commands) > 0 {
					covered++
				}
				if !uncovered || len(r.Commands) == 0 {
					shown = append(shown, r)
				}
			}
			out := map[string]any{"routes": shown, "covered": covered, "total": len(all)}
			return a.printOwn(out, func(w io.Writer) {
				rows := [][]string{}
				for _, r := range shown {
					cmds := strings.Join(r.Commands, ", ")
					if cmds == "" {
						cmds = "-"
					}
					rows = append(rows, []string{r.Method, r.Path, r.OperationID, cmds})
				}
				table(w, "METHOD PATH OPERATION COMMAND", rows)
				fmt.Fprintf(w, "%d of %d routes have a command\n", covered, len(all))
			})
		},
	}
	cmd.Flags().BoolVar(&uncovered, "uncovered", false, "only the routes no command calls")
	return operations(cmd, "openapi")
}
