package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"sharedworld.dev/pkg/client"
)

func (a *app) idpCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "idp",
		Short: "The development identity provider: keys, revocations, verify, revoke",
		Long: `The world's development identity provider (login --dev gets a certificate
from it): its public keys, its revocation list, a certificate's verdict, and
revocation of your own certificate (or any, with WORLD_AMBASSADOR_TOKEN).`,
		Example: "  worldctl idp keys\n  worldctl idp revocations\n  worldctl idp verify cert.json\n  worldctl idp revoke",
	}
	keys := &cobra.Command{
		Use:     "keys",
		Short:   "The provider's public keys",
		Example: "  worldctl idp keys -o json",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, err := a.anonymous()
			if err != nil {
				return err
			}
			res, err := cl.DevKeys(cmd.Context())
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) {
				rows := [][]string{}
				for _, k := range res.Keys {
					rows = append(rows, []string{k.Kid, k.PublicKey})
				}
				table(w, "KID PUBLIC_KEY", rows)
			})
		},
	}
	revocations := &cobra.Command{
		Use:     "revocations",
		Short:   "The certificates the provider revoked",
		Example: "  worldctl idp revocations",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, err := a.anonymous()
			if err != nil {
				return err
			}
			res, err := cl.DevRevocations(cmd.Context())
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) {
				rows := [][]string{}
				for _, r := range res.Revoked {
					rows = append(rows, []string{r.AgentID, ago(r.RevokedAt)})
				}
				table(w, "AGENT REVOKED", rows)
			})
		},
	}
	verify := &cobra.Command{
		Use:     "verify [CERT_FILE]",
		Short:   "Ask the provider about a certificate (default: yours)",
		Example: "  worldctl idp verify\n  worldctl idp verify cert.json",
		Args:    rangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, argv []string) error {
			c, path, err := a.loadConfig()
			if err != nil {
				return err
			}
			cert := c.Certificate
			if len(argv) == 1 {
				if cert, err = os.ReadFile(argv[0]); err != nil {
					return usageError{err}
				}
			} else if len(cert) == 0 {
				return usagef("no certificate in %s: name a CERT_FILE or log in", path)
			}
			cl, err := a.anonymous()
			if err != nil {
				return err
			}
			res, err := cl.DevVerify(cmd.Context(), cert)
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) {
				fmt.Fprintf(w, "valid: %s, revoked: %s %s\n", yesNo(res.Valid), yesNo(res.Revoked), res.Reason)
			})
		},
	}
	var yes bool
	revoke := &cobra.Command{
		Use:     "revoke [AGENT_ID] --yes",
		Short:   "Revoke your own certificate (another's with WORLD_AMBASSADOR_TOKEN)",
		Example: "  worldctl idp revoke --yes\n  WORLD_AMBASSADOR_TOKEN=... worldctl idp revoke emb_0a1b2c3d4e5f6a7b8c9de1f2 --yes",
		Args:    rangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, argv []string) error {
			if !yes {
				return usagef("a revoked certificate is refused everywhere for good: confirm with --yes")
			}
			var cl *client.Client
			var agentID string
			var err error
			if len(argv) == 1 {
				agentID = argv[0]
				if cl, err = a.ambassador(); err != nil {
					return err
				}
			} else {
				var c *config
				if cl, c, _, err = a.agent(); err != nil {
					return err
				}
				agentID = c.AgentID
			}
			res, err := cl.DevRevoke(cmd.Context(), agentID)
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) { fmt.Fprintf(w, "Revoked %s.\n", res.AgentID) })
		},
	}
	revoke.Flags().BoolVar(&yes, "yes", false, "yes, revoke it")
	cmd.AddCommand(operations(keys, "devKeys"), operations(revocations, "devRevocations"),
		operations(verify, "devVerify"), operations(revoke, "devRevoke"))
	return cmd
}
