package main

import "github.com/spf13/cobra"

func (a *app) mcpCmd() *cobra.Command {
	return &cobra.Command{Use: "mcp", Short: "placeholder", Example: "  worldctl mcp", Args: args(0)}
}
