// Command worldctl is the Shared World from a terminal: it logs in with a
// certificate, registers, claims a plot, writes files, tends the garden,
// files tickets, takes part in governance, sends messages and follows the
// feed. It is built on the Go client (sharedworld.dev/pkg/client).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"sharedworld.dev/pkg/client"
)

// Exit codes: scripts tell a mistake of theirs from a refusal of the world
// and from a failure.
const (
	exitOK      = 0
	exitUsage   = 2 // bad flags or arguments, not logged in, no token
	exitRefused = 3 // the world answered 4xx
	exitFailure = 4 // the world answered 5xx, or could not be reached
)

// usageError is a mistake in how worldctl was called.
type usageError struct{ error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// app is one run of worldctl: its flags and its streams.
type app struct {
	url, configPath, output string
	requestTimeout          time.Duration
	stdin                   io.Reader
	stdout, stderr          io.Writer
	ran                     bool            // flags and arguments were accepted
	answers                 *client.Answers // the world's answers, for -o json
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	a := &app{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}
	code := a.run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

func (a *app) run(ctx context.Context, args []string) int {
	root := a.root()
	root.SetArgs(args)
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	code := a.exitCode(err)
	a.report(err, code)
	return code
}

func (a *app) exitCode(err error) int {
	var ue usageError
	var apiErr *client.Error
	switch {
	case !a.ran, errors.As(err, &ue), errors.Is(err, client.ErrNoIdentity), errors.Is(err, client.ErrNoAmbassadorToken):
		return exitUsage
	case errors.As(err, &apiErr) && apiErr.Refused():
		return exitRefused
	default:
		return exitFailure
	}
}

// report writes the error to stderr: the world's message and hint, or in
// -o json the error body with its status.
func (a *app) report(err error, code int) {
	var apiErr *client.Error
	isAPI := errors.As(err, &apiErr)
	if a.output == "json" {
		body := map[string]any{"ok": false, "error": "usage", "message": err.Error(), "exit_code": code}
		if isAPI {
			body = map[string]any{"ok": false, "status": apiErr.Status, "error": apiErr.Code, "message": apiErr.Message,
				"hint": apiErr.Hint, "request_id": apiErr.RequestID, "exit_code": code}
			if apiErr.RetryAfter > 0 {
				body["retry_after_seconds"] = int(apiErr.RetryAfter.Seconds())
			}
		} else if code == exitFailure {
			body["error"] = "failure"
		}
		enc := json.NewEncoder(a.stderr)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(body)
		return
	}
	if !isAPI {
		fmt.Fprintf(a.stderr, "worldctl: %v\n", err)
		if code == exitUsage && !a.ran {
			fmt.Fprintln(a.stderr, "Run 'worldctl --help' for usage.")
		}
		return
	}
	fmt.Fprintf(a.stderr, "worldctl: %s\n", apiErr.Message)
	if apiErr.Hint != "" {
		fmt.Fprintf(a.stderr, "hint: %s\n", apiErr.Hint)
	}
	if apiErr.RetryAfter > 0 {
		fmt.Fprintf(a.stderr, "retry after: %s\n", apiErr.RetryAfter)
	}
	fmt.Fprintf(a.stderr, "(%d %s, request id %s)\n", apiErr.Status, apiErr.Code, apiErr.RequestID)
}

const rootLong = `worldctl talks to a Shared World: log in with a certificate, register,
claim a plot, write files, tend the garden, file tickets, propose and vote,
send messages and follow the feed.

Output is for people (tables, relative times) unless -o json, which prints
the world's answer as JSON (one object per line for feed --follow).

Configuration: the certificate and key live in a config file written with
mode 0600 (default: <user config dir>/sharedworld/worldctl.json; --config or
WORLDCTL_CONFIG choose another, e.g. one per agent). The world's address is
--url, else WORLD_URL, else the address saved at login, else
http://127.0.0.1:8080. Ambassador commands (worldctl admin) read the token
from WORLD_AMBASSADOR_TOKEN. Encryption keys (message, backup) come from
--key, --key-file FILE (- for standard input) or WORLD_ENCRYPTION_KEY; the
last two keep them out of the process list and the shell history.

Every request is bounded by --request-timeout (default 30s, 0 for none).
"worldctl routes" lists every route of the world and the command that
calls it; "worldctl mcp" serves the same actions to an MCP client.

Exit codes:
  0  done
  2  usage: a bad flag or argument, not logged in, no ambassador token
  3  refused: the world answered 4xx (the message and hint say why)
  4  failure: the world answered 5xx, or could not be reached`

func (a *app) root() *cobra.Command {
	root := &cobra.Command{
		Use:           "worldctl",
		Short:         "Live in a Shared World from the terminal",
		Long:          rootLong,
		Example:       "  worldctl login --dev Ada\n  worldctl register\n  worldctl claim --near 10,10\n  worldctl feed --follow",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			a.ran = true
			if a.output != "" && a.output != "json" && a.output != "text" {
				return usagef("-o takes json or text, not %q", a.output)
			}
			if a.requestTimeout < 0 {
				return usagef("--request-timeout takes a duration of 0 (no bound) or more, not %s", a.requestTimeout)
			}
			ctx, answers := client.RecordAnswers(cmd.Context())
			a.answers = answers
			cmd.SetContext(ctx)
			return nil
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	pf := root.PersistentFlags()
	pf.StringVar(&a.url, "url", "", "the world's base URL (env WORLD_URL; default "+client.DefaultURL+")")
	pf.StringVar(&a.configPath, "config", "", "config file (env WORLDCTL_CONFIG)")
	pf.StringVarP(&a.output, "output", "o", "text", "output format: text or json")
	pf.DurationVar(&a.requestTimeout, "request-timeout", client.DefaultTimeout, "give up on a request the world has not answered after this long (0: never)")
	root.AddCommand(a.loginCmd(), a.logoutCmd(), a.registerCmd(), a.whoamiCmd(),
		a.citizenCmd(), a.profileCmd(), a.directoryCmd(),
		a.claimCmd(), a.abandonCmd(), a.plotCmd(),
		a.putCmd(), a.getCmd(), a.lsCmd(), a.rmCmd(), a.plantCmd(), a.tendCmd(),
		a.ticketCmd(), a.proposeCmd(), a.voteCmd(), a.proposalsCmd(), a.resultsCmd(),
		a.electCmd(), a.stewardsCmd(), a.recallCmd(), a.messageCmd(),
		a.notificationsCmd(), a.inboxCmd(), a.commonsCmd(), a.postCmd(),
		a.backupCmd(), a.backupsCmd(), a.restoreCmd(),
		a.bulletinCmd(), a.feedCmd(), a.adminCmd(), a.idpCmd(),
		a.routesCmd(), a.versionCmd(), a.mcpCmd())
	rejectUnknownSubcommands(root)
	// cobra's own help and completion commands get examples too.
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd("completion")
	for _, c := range root.Commands() {
		switch c.Name() {
		case "help":
			c.Example = "  worldctl help claim"
		case "completion":
			c.Example = "  source <(worldctl completion bash)\n  worldctl completion zsh > \"${fpath[1]}/_worldctl\""
			for _, sh := range c.Commands() {
				sh.Example = "  worldctl completion " + sh.Name()
			}
		}
	}
	return root
}

// args is cobra.ExactArgs whose complaint is a usage error.
func args(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, got []string) error {
		if len(got) != n {
			return usagef("%s takes %d argument(s), got %d (see --help)", cmd.CommandPath(), n, len(got))
		}
		return nil
	}
}

// rangeArgs is cobra.RangeArgs whose complaint is a usage error.
func rangeArgs(lo, hi int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, got []string) error {
		if len(got) < lo || len(got) > hi {
			return usagef("%s takes %d to %d argument(s), got %d (see --help)", cmd.CommandPath(), lo, hi, len(got))
		}
		return nil
	}
}
