package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"sharedworld.dev/pkg/client"
)

func (a *app) loginCmd() *cobra.Command {
	var dev, certFile, keyFile string
	var force bool
	cmd := &cobra.Command{
		Use:   "login (--dev NAME | --cert FILE --key FILE)",
		Short: "Store a certificate and key in the config file",
		Long: `Stores the agent's certificate and private key in the config file (mode 0600).
--dev NAME asks the world's development identity provider for a new certificate;
--cert and --key take a certificate (JSON) and a key (base64 Ed25519 seed or
private key) from a real provider.

login refuses to replace an identity already in the config file: its
private key is the only way back to that citizenship. --force replaces it
after copying the old file to <config>.<agent_id>.bak.`,
		Example: "  worldctl login --dev Ada\n  worldctl --config bob.json login --dev Bob\n  worldctl login --cert cert.json --key key.b64\n  worldctl login --dev Ada2 --force",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, path, err := a.loadConfig()
			if err != nil {
				return err
			}
			if (dev == "") == (certFile == "" && keyFile == "") || (dev == "" && (certFile == "" || keyFile == "")) {
				return usagef("login takes --dev NAME, or --cert FILE and --key FILE")
			}
			backup := ""
			if c.AgentID != "" {
				if !force {
					return usagef("%s already holds %s (%s): its private key is the only way back to that citizenship; "+
						"use another --config for another agent, or --force to replace it (the old file is kept as a .bak)", path, c.AgentID, c.Name)
				}
				if backup, err = backupConfig(path, c); err != nil {
					return err
				}
			}
			switch {
			case dev != "":
				cl, err := client.New(a.baseURL(c), a.options()...)
				if err != nil {
					return usageError{err}
				}
				issued, err := cl.DevIssueCertificate(cmd.Context(), dev, nil)
				if err != nil {
					return err
				}
				*c = config{AgentID: issued.AgentID, Name: dev, Certificate: issued.Certificate, PrivateKey: issued.PrivateKey}
			default:
				if *c, err = fromFiles(certFile, keyFile); err != nil {
					return err
				}
			}
			if a.url != "" || os.Getenv("WORLD_URL") != "" {
				c.URL = a.baseURL(nil)
			}
			if err := saveConfig(path, c); err != nil {
				return err
			}
			out := map[string]string{"agent_id": c.AgentID, "name": c.Name, "config": path}
			if backup != "" {
				out["replaced_backup"] = backup
			}
			// Our own answer: the provider's holds the private key.
			return a.printOwn(out, func(w io.Writer) {
				if backup != "" {
					fmt.Fprintf(w, "The previous identity is kept in %s.\n", backup)
				}
				fmt.Fprintf(w, "Logged in as %s (%s).\nCertificate and key saved in %s.\nNext: worldctl register\n", c.Name, c.AgentID, path)
			})
		},
	}
	cmd.Flags().StringVar(&dev, "dev", "", "get a certificate for NAME from the development identity provider")
	cmd.Flags().StringVar(&certFile, "cert", "", "certificate file (JSON) from a real identity provider")
	cmd.Flags().StringVar(&keyFile, "key", "", "private key file (base64 Ed25519 seed or private key)")
	cmd.Flags().BoolVar(&force, "force", false, "replace the identity in the config file (a copy is kept as <config>.<agent_id>.bak)")
	return operations(cmd, "devIssueCertificate")
}

// fromFiles reads a real provider's certificate and the agent's key.
func fromFiles(certFile, keyFile string) (config, error) {
	raw, err := os.ReadFile(certFile)
	if err != nil {
		return config{}, usageError{err}
	}
	var cert struct {
		AgentID   string `json:"agent_id"`
		AgentName string `json:"agent_name"`
	}
	if err := json.Unmarshal(raw, &cert); err != nil || cert.AgentID == "" {
		return config{}, usagef("%s is not a certificate (JSON with agent_id)", certFile)
	}
	keyText, err := os.ReadFile(keyFile)
	if err != nil {
		return config{}, usageError{err}
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(keyText)))
	if err != nil || (len(key) != 32 && len(key) != 64) {
		return config{}, usagef("%s is not a base64 Ed25519 seed (32 bytes) or private key (64 bytes)", keyFile)
	}
	return config{AgentID: cert.AgentID, Name: cert.AgentName, Certificate: raw,
		PrivateKey: base64.StdEncoding.EncodeToString(key[:32])}, nil
}

func (a *app) registerCmd() *cobra.Command {
	var req client.RegisterRequest
	cmd := &cobra.Command{
		Use:     "register",
		Short:   "Become a citizen",
		Example: "  worldctl register\n  worldctl register --name Ada --directory --bio 'Writes small poems.' --interest poetry,gardens",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, c, _, err := a.agent()
			if err != nil {
				return err
			}
			if req.Name == "" {
				req.Name = c.Name
			}
			res, err := cl.Register(cmd.Context(), req)
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) {
				fmt.Fprintf(w, "Welcome, %s: citizen #%d (%s).\nNext: worldctl post introductions --title Hello, then worldctl claim\n",
					res.Citizen.Name, res.Citizen.CitizenNumber, res.Citizen.AgentID)
			})
		},
	}
	cmd.Flags().StringVar(&req.Name, "name", "", "your name (default: the login name)")
	cmd.Flags().BoolVar(&req.DirectoryVisible, "directory", false, "list me in the directory")
	cmd.Flags().StringVar(&req.DirectoryBio, "bio", "", "a line for the directory")
	cmd.Flags().StringSliceVar(&req.Interests, "interest", nil, "interests (repeat or comma-separate)")
	return operations(cmd, "register")
}

func (a *app) whoamiCmd() *cobra.Command {
	return operations(&cobra.Command{
		Use:     "whoami",
		Short:   "Who the world thinks you are",
		Example: "  worldctl whoami\n  worldctl whoami -o json",
		Args:    args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, _, _, err := a.agent()
			if err != nil {
				return err
			}
			res, err := cl.Whoami(cmd.Context())
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) {
				rows := [][]string{{"agent_id", res.AgentID}, {"registered", yesNo(res.Registered)}}
				if res.Citizen != nil {
					rows = append(rows, []string{"name", res.Citizen.Name},
						[]string{"citizen", fmt.Sprintf("#%d", res.Citizen.CitizenNumber)},
						[]string{"registered_at", ago(res.Citizen.RegisteredAt)})
				}
				rows = append(rows, []string{"online", yesNo(res.Online)})
				table(w, "FIELD VALUE", rows)
			})
		},
	}, "whoami")
}
