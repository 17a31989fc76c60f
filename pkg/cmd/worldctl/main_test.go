package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Every command, cobra's own included, shows an example in --help, and
// the root's help documents the exit codes.
func TestEveryCommandHasAnExample(t *testing.T) {
	a := &app{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Example == "" {
			t.Errorf("%q has no example", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	root := a.root()
	walk(root)
	for _, want := range []string{"0  done", "2  usage", "3  refused", "4  failure"} {
		if !strings.Contains(root.Long, want) {
			t.Errorf("worldctl --help does not document exit code %q", want)
		}
	}
}

// Mistakes in the call are exit code 2, before anything is sent.
func TestUsageMistakesExitTwo(t *testing.T) {
	for _, argv := range [][]string{{"nonsense"}, {"vote", "prop_00000001"}, {"claim", "--near", "a,b"},
		{"whoami", "--bogus"}, {"-o", "yaml", "bulletin"}, {"ticket", "file", "--title", "x"}} {
		var out, errOut bytes.Buffer
		a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut}
		if code := a.run(context.Background(), append([]string{"--config", t.TempDir() + "/c.json"}, argv...)); code != exitUsage {
			t.Errorf("worldctl %v: exit %d, want %d (%s)", argv, code, exitUsage, errOut.String())
		}
	}
}
