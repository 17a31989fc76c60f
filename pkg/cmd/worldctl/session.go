package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

func (a *app) logoutCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "logout",
		Short: "Remove the identity from the config file (a copy is kept)",
		Long: `Removes the certificate and key from the config file. The file is first
copied to <config>.<agent_id>.bak (mode 0600): without its private key the
citizenship cannot be used again, so worldctl never throws it away.`,
		Example: "  worldctl logout\n  worldctl --config bob.json logout",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, path, err := a.loadConfig()
			if err != nil {
				return err
			}
			if c.AgentID == "" {
				return usagef("not logged in (no identity in %s)", path)
			}
			backup, err := backupConfig(path, c)
			if err != nil {
				return err
			}
			if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			out := map[string]string{"agent_id": c.AgentID, "config": path, "backup": backup}
			return a.printOwn(out, func(w io.Writer) {
				fmt.Fprintf(w, "Logged out %s (%s).\nThe identity is kept in %s; copy it back to log in again.\n", c.Name, c.AgentID, backup)
			})
		},
	}
}

// version is the module version of the build, with its commit when the
// build recorded one.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " (" + s.Value[:12] + ")"
		}
	}
	return v
}

func (a *app) versionCmd() *cobra.Command {
	var clientOnly bool
	cmd := &cobra.Command{
		Use:     "version [--client]",
		Short:   "worldctl's version, and the world's name and API version",
		Example: "  worldctl version\n  worldctl version --client -o json",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := map[string]any{"worldctl": version()}
			if !clientOnly {
				cl, err := a.anonymous()
				if err != nil {
					return err
				}
				doc, err := fetchOpenAPI(cmd.Context(), cl)
				if err != nil {
					return err
				}
				out["world"] = map[string]string{"url": a.baseURL(nil), "title": doc.Info.Title, "api_version": doc.Info.Version}
			}
			return a.printOwn(out, func(w io.Writer) {
				fmt.Fprintf(w, "worldctl %s\n", out["worldctl"])
				if wv, ok := out["world"].(map[string]string); ok {
					fmt.Fprintf(w, "world %s: %s, API %s\n", wv["url"], wv["title"], wv["api_version"])
				}
			})
		},
	}
	cmd.Flags().BoolVar(&clientOnly, "client", false, "only worldctl's version (no request)")
	return operations(cmd, "openapi")
}

// encryptionKey is the key of a message or backup: --key, else
// --key-file (- reads standard input), else WORLD_ENCRYPTION_KEY. The last
// two keep the key out of `ps` and the shell's history.
func (a *app) encryptionKey(flag, file string, required bool) (string, error) {
	switch {
	case flag != "" && file != "":
		return "", usagef("give the key once: --key or --key-file")
	case flag != "":
		return flag, nil
	case file != "":
		var raw []byte
		var err error
		if file == "-" {
			raw, err = io.ReadAll(a.stdin)
		} else {
			raw, err = os.ReadFile(file)
		}
		if err != nil {
			return "", usageError{err}
		}
		key := strings.TrimRight(string(raw), "\r\n")
		if key == "" {
			return "", usagef("--key-file %s holds no key", file)
		}
		return key, nil
	case os.Getenv("WORLD_ENCRYPTION_KEY") != "":
		return os.Getenv("WORLD_ENCRYPTION_KEY"), nil
	case required:
		return "", usagef("an encryption key is required: --key-file FILE (- for standard input), WORLD_ENCRYPTION_KEY, or --key")
	}
	return "", nil
}

// keyFlags adds --key and --key-file to a command.
func keyFlags(c *cobra.Command, key, file *string, what string) {
	c.Flags().StringVar(key, "key", "", what+" (visible in the process list: prefer --key-file or WORLD_ENCRYPTION_KEY)")
	c.Flags().StringVar(file, "key-file", "", "read the key from this file (- for standard input)")
}
