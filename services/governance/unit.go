package governance

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/config"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/services/governance/internal/ballot"
)

// Unit declares the governance service to a host (its binary or the local
// runner), with its one job: `governance governance-check`.
var Unit = platform.Unit{
	Name:  "governance",
	Check: func() error { _, err := config.Load[Settings](); return err },
	Build: func(ctx context.Context, env platform.Env) (platform.Service, error) {
		opts, err := options(env)
		if err != nil {
			return nil, err
		}
		return New(ctx, env.Deps, opts)
	},
	Jobs: []platform.Job{CheckJob},
}

// Settings are the governance service's own environment variables.
type Settings struct {
	// BallotKey is base64 of 32 random bytes (a Kubernetes Secret).
	BallotKey       string `env:"WORLD_GOVERNANCE_BALLOT_KEY"`
	ElectionTrigger int64  `env:"WORLD_ELECTION_TRIGGER" envDefault:"10"`
}

// Validate checks the settings at start.
func (s Settings) Validate() error {
	var p config.Problems
	if s.BallotKey != "" {
		_, err := ballot.ParseKey(s.BallotKey)
		p.Addf(err != nil, "WORLD_GOVERNANCE_BALLOT_KEY: %v", err)
	}
	p.Addf(s.ElectionTrigger < 1, "WORLD_ELECTION_TRIGGER must be at least 1, got %d", s.ElectionTrigger)
	return p.Err()
}

// options reads the settings. Without a configured ballot key, a host
// with a data directory (the local runner) keeps a generated one there;
// anywhere else the key is required, since ballots sealed under a key that
// is lost can never be opened again.
func options(env platform.Env) (Options, error) {
	s, err := config.Load[Settings]()
	if err != nil {
		return Options{}, err
	}
	key, err := ballotKey(s.BallotKey, env.Config.DataDir, env.Deps.Logger)
	if err != nil {
		return Options{}, err
	}
	_, wall := env.Deps.Clock.(clock.System)
	return Options{BallotKey: key, Trigger: s.ElectionTrigger, Hourly: wall}, nil
}

func ballotKey(configured, dataDir string, log *slog.Logger) ([]byte, error) {
	if configured != "" {
		return ballot.ParseKey(configured)
	}
	if dataDir == "" {
		return nil, errors.New("configuration: WORLD_GOVERNANCE_BALLOT_KEY is required (base64 of 32 random bytes, e.g. `openssl rand -base64 32`)")
	}
	path := filepath.Join(dataDir, "governance", "ballot.key")
	if raw, err := os.ReadFile(path); err == nil {
		return ballot.ParseKey(strings.TrimSpace(string(raw)))
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read the ballot key: %w", err)
	}
	key := ballot.NewKey()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("keep the ballot key: %w", err)
	}
	if err := os.WriteFile(path, []byte(base64.StdEncoding.EncodeToString(key)+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("keep the ballot key: %w", err)
	}
	if log != nil {
		log.Info("generated the ballot key; set WORLD_GOVERNANCE_BALLOT_KEY to choose one", slog.String("kept_in", path))
	}
	return key, nil
}
