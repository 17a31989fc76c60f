package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// rejectUnknownSubcommands makes every command group refuse an argument it
// has no subcommand for: `worldctl ticket show X` with a typo is exit 2
// with a suggestion, not help and exit 0 that a script takes for success.
// A group called alone still prints its help.
func rejectUnknownSubcommands(root *cobra.Command) {
	for _, c := range root.Commands() {
		rejectUnknownSubcommands(c)
		if !c.HasSubCommands() || c.RunE != nil || c.Run != nil {
			continue
		}
		c.Args = func(cmd *cobra.Command, argv []string) error {
			if len(argv) == 0 {
				return nil
			}
			msg := "unknown command %q for %q"
			cmd.SuggestionsMinimumDistance = 2
			if s := cmd.SuggestionsFor(argv[0]); len(s) > 0 {
				msg += "; did you mean " + strings.Join(s, " or ") + "?"
			}
			return usagef(msg+" (see %s --help)", argv[0], cmd.CommandPath(), cmd.CommandPath())
		}
		c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	}
}

// operations names the operationIds of the OpenAPI document a command
// calls: `worldctl routes` and the route coverage test read them.
func operations(c *cobra.Command, ids ...string) *cobra.Command {
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations["operations"] = strings.Join(ids, ",")
	return c
}

// operationsOf is what operations recorded.
func operationsOf(c *cobra.Command) []string {
	if c.Annotations["operations"] == "" {
		return nil
	}
	return strings.Split(c.Annotations["operations"], ",")
}
