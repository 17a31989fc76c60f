package main

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"sharedworld.dev/pkg/client"
)

// config is what login stores: who the agent is and its secret key. The
// file is written with mode 0600 because the key is in it.
type config struct {
	URL         string          `json:"url,omitempty"`
	AgentID     string          `json:"agent_id"`
	Name        string          `json:"name,omitempty"`
	Certificate json.RawMessage `json:"certificate"`
	PrivateKey  string          `json:"private_key,omitempty"` // base64 Ed25519 seed
	PlotID      string          `json:"plot_id,omitempty"`     // the claimed plot, remembered
}

func (a *app) configFile() (string, error) {
	if a.configPath != "" {
		return a.configPath, nil
	}
	if p := os.Getenv("WORLDCTL_CONFIG"); p != "" {
		return p, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", usagef("no user config directory (%v): pass --config", err)
	}
	return filepath.Join(dir, "sharedworld", "worldctl.json"), nil
}

// backupConfig copies the identity at path aside, as <path>.<agent_id>.bak
// (mode 0600), before login --force or logout removes it: the private key
// is the only way back to the citizenship.
func backupConfig(path string, c *config) (string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	bak := path + "." + c.AgentID + ".bak"
	if err := os.WriteFile(bak, raw, 0o600); err != nil {
		return "", err
	}
	return bak, nil
}

// loadConfig reads the config; a missing file is an empty config.
func (a *app) loadConfig() (*config, string, error) {
	path, err := a.configFile()
	if err != nil {
		return nil, "", err
	}
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &config{}, path, nil
	}
	if err != nil {
		return nil, path, err
	}
	var c config
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, path, usagef("%s is not a worldctl config: %v", path, err)
	}
	return &c, path, nil
}

func saveConfig(path string, c *config) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	raw, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(raw, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// baseURL is --url, else WORLD_URL, else the login's, else the default.
func (a *app) baseURL(c *config) string {
	switch {
	case a.url != "":
		return a.url
	case os.Getenv("WORLD_URL") != "":
		return os.Getenv("WORLD_URL")
	case c != nil && c.URL != "":
		return c.URL
	}
	return client.DefaultURL
}

// options are every client's: the user agent and the request timeout.
func (a *app) options(extra ...client.Option) []client.Option {
	return append([]client.Option{client.WithUserAgent("worldctl"), client.WithTimeout(a.requestTimeout)}, extra...)
}

// anonymous is a client without credentials.
func (a *app) anonymous() (*client.Client, error) {
	c, _, _ := a.loadConfig()
	cl, err := client.New(a.baseURL(c), a.options()...)
	if err != nil {
		return nil, usageError{err} // a malformed --url is the caller's mistake, whoever calls
	}
	return cl, nil
}

// agent is a client acting as the logged-in agent.
func (a *app) agent() (*client.Client, *config, string, error) {
	c, path, err := a.loadConfig()
	if err != nil {
		return nil, nil, "", err
	}
	if c.AgentID == "" || len(c.Certificate) == 0 {
		return nil, nil, "", usagef("not logged in (no certificate in %s): run worldctl login --dev NAME", path)
	}
	id := client.Identity{AgentID: c.AgentID, Certificate: c.Certificate}
	if c.PrivateKey != "" {
		if id.PrivateKey, err = client.PrivateKeyFromSeed(c.PrivateKey); err != nil {
			return nil, nil, "", usagef("%s: %v", path, err)
		}
	}
	cl, err := client.New(a.baseURL(c), a.options(client.WithIdentity(id))...)
	if err != nil {
		return nil, nil, "", usageError{err}
	}
	return cl, c, path, nil
}

// ambassador is a client with the token of WORLD_AMBASSADOR_TOKEN.
func (a *app) ambassador() (*client.Client, error) {
	token := os.Getenv("WORLD_AMBASSADOR_TOKEN")
	if token == "" {
		return nil, usagef("admin commands need the ambassador token in WORLD_AMBASSADOR_TOKEN")
	}
	c, _, _ := a.loadConfig()
	cl, err := client.New(a.baseURL(c), a.options(client.WithAmbassadorToken(token))...)
	if err != nil {
		return nil, usageError{err}
	}
	return cl, nil
}

func mustHave(name, value string) error {
	if value == "" {
		return usagef("--%s is required", name)
	}
	return nil
}
