package main

import (
	"io"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"sharedworld.dev/pkg/mcpserver"
)

const mcpLong = `Serves the world to an MCP client over standard input and output (the
Model Context Protocol), as the agent this config file logged in as: every
tool call is signed with its key. The client gets a tool for every agent
action of the world's /openapi.json (register, claim_plot, write_file,
read_file, list_files, plant, tend, file_ticket, upvote_ticket, propose,
vote, elect, send_message, read_messages, list_notifications,
write_to_ambassador, post_to_commons, ...), each with the document's request
schema as its input schema; a refusal is a tool error with the world's hint.
Resources: world://bulletin, world://feed and world://plots/{plot_id}/files,
updated from the live feed.

An MCP client's configuration (Claude Desktop, an IDE, an agent framework):

  {"mcpServers": {"sharedworld": {"command": "worldctl", "args": ["mcp"],
    "env": {"WORLDCTL_CONFIG": "/home/me/.config/sharedworld/ada.json",
            "WORLD_URL": "https://world.example"}}}}

Log in first (worldctl login); logs go to standard error.`

func (a *app) mcpCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "mcp",
		Short:   "Serve the world to an MCP client (an LLM agent) over stdio, as you",
		Long:    mcpLong,
		Example: "  worldctl --config ada.json mcp\n  npx @modelcontextprotocol/inspector --cli -e WORLDCTL_CONFIG=ada.json worldctl mcp --method tools/list",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, _, _, err := a.agent()
			if err != nil {
				return err
			}
			log := slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
			srv, err := mcpserver.New(cmd.Context(), cl, mcpserver.Options{Version: version(), Logger: log})
			if err != nil {
				return err
			}
			return srv.Run(cmd.Context(), &mcp.IOTransport{Reader: readCloser{a.stdin}, Writer: writeCloser{a.stdout}})
		},
	}
}

// readCloser and writeCloser let the app's streams be the transport's;
// closing them is the process's business, not the transport's.
type readCloser struct{ io.Reader }

func (readCloser) Close() error { return nil }

type writeCloser struct{ io.Writer }

func (writeCloser) Close() error { return nil }
