package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"sharedworld.dev/pkg/client"
)

// runCLI runs worldctl in process with its own config file.
func runCLI(t *testing.T, config, stdin string, argv ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	a := &app{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut}
	code := a.run(context.Background(), append([]string{"--config", config}, argv...))
	return out.String(), errOut.String(), code
}

// A mistyped subcommand is a usage error, not help and success.
func TestMistypedSubcommandExitsTwo(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "c.json")
	for _, argv := range [][]string{{"ticket", "shw", "X"}, {"admin", "bogus"}, {"elect", "bogus"}, {"plot", "lst"}, {"idp", "nope"}} {
		_, errOut, code := runCLI(t, cfg, "", argv...)
		if code != exitUsage || !strings.Contains(errOut, "unknown command") {
			t.Errorf("worldctl %v: exit %d, want %d with \"unknown command\"\n%s", argv, code, exitUsage, errOut)
		}
	}
	if _, errOut, _ := runCLI(t, cfg, "", "ticket", "shw", "X"); !strings.Contains(errOut, "did you mean show") {
		t.Errorf("no suggestion for a near miss: %s", errOut)
	}
	if out, _, code := runCLI(t, cfg, "", "ticket"); code != exitOK || !strings.Contains(out, "Available Commands") {
		t.Errorf("a group alone prints its help and exits 0: exit %d\n%s", code, out)
	}
}

// A malformed --url is the caller's mistake for every kind of command.
func TestMalformedURLExitsTwo(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "c.json")
	writeIdentity(t, cfg)
	for _, argv := range [][]string{{"ticket", "list"}, {"whoami"}, {"bulletin"}, {"citizen", "emb_x"}} {
		if _, errOut, code := runCLI(t, cfg, "", append([]string{"--url", "ftp//nowhere"}, argv...)...); code != exitUsage {
			t.Errorf("worldctl --url ftp//nowhere %v: exit %d, want %d\n%s", argv, code, exitUsage, errOut)
		}
	}
}

// login does not throw away an identity: it refuses before asking anyone.
func TestLoginRefusesToReplaceAnIdentity(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "c.json")
	writeIdentity(t, cfg)
	before, _ := os.ReadFile(cfg)
	_, errOut, code := runCLI(t, cfg, "", "--url", "http://127.0.0.1:1", "login", "--dev", "Eve")
	if code != exitUsage || !strings.Contains(errOut, "--force") {
		t.Fatalf("login over an identity: exit %d, want %d naming --force\n%s", code, exitUsage, errOut)
	}
	if after, _ := os.ReadFile(cfg); !bytes.Equal(before, after) {
		t.Fatal("the refused login changed the config file")
	}
}

// logout keeps a copy of the identity and empties the config.
func TestLogoutKeepsABackup(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "c.json")
	writeIdentity(t, cfg)
	before, _ := os.ReadFile(cfg)
	out, errOut, code := runCLI(t, cfg, "", "logout")
	if code != exitOK {
		t.Fatalf("logout: exit %d\n%s", code, errOut)
	}
	bak := cfg + ".emb_0123456789abcdef01234567.bak"
	if got, err := os.ReadFile(bak); err != nil || !bytes.Equal(got, before) {
		t.Fatalf("logout kept no copy in %s: %v", bak, err)
	}
	if fi, _ := os.Stat(bak); fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup mode %v, want 0600", fi.Mode().Perm())
	}
	if _, err := os.Stat(cfg); !os.IsNotExist(err) {
		t.Fatalf("the config file is still there: %v", err)
	}
	if !strings.Contains(out, bak) {
		t.Fatalf("logout does not say where the identity went: %s", out)
	}
	if _, _, code := runCLI(t, cfg, "", "whoami"); code != exitUsage {
		t.Fatalf("whoami after logout: exit %d, want %d", code, exitUsage)
	}
}

// A world that accepts and never answers costs --request-timeout per
// attempt, then exit 4.
func TestRequestTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, never answered
		}
	}()
	cfg := filepath.Join(t.TempDir(), "c.json")
	start := time.Now()
	_, errOut, code := runCLI(t, cfg, "", "--url", "http://"+ln.Addr().String(), "--request-timeout", "150ms", "ticket", "list")
	if code != exitFailure || !strings.Contains(errOut, "did not answer") {
		t.Fatalf("a silent world: exit %d, want %d saying it did not answer\n%s", code, exitFailure, errOut)
	}
	// 4 attempts of 150ms and backoffs of 0.2+0.4+0.8s: far from forever.
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("a silent world held worldctl %s", took)
	}
	if _, _, code := runCLI(t, cfg, "", "--request-timeout", "-1s", "bulletin"); code != exitUsage {
		t.Fatalf("a negative timeout: exit %d, want %d", code, exitUsage)
	}
}

// A 429 says how long to wait, in text and in JSON.
func TestRateLimitShowsRetryAfter(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"ok":false,"error":"rate_limited","message":"five tickets a day","hint":"try again tomorrow"}`))
	}))
	defer srv.Close()
	cfg := filepath.Join(t.TempDir(), "c.json")
	writeIdentity(t, cfg)
	_, errOut, code := runCLI(t, cfg, "", "--url", srv.URL, "ticket", "file", "--category", "bug", "--title", "t", "--description", "d")
	if code != exitRefused || !strings.Contains(errOut, "retry after: 1h0m0s") {
		t.Fatalf("429: exit %d, want %d with the wait\n%s", code, exitRefused, errOut)
	}
	_, errOut, _ = runCLI(t, cfg, "", "--url", srv.URL, "-o", "json", "ticket", "file", "--category", "bug", "--title", "t", "--description", "d")
	if !strings.Contains(errOut, `"retry_after_seconds":3600`) {
		t.Fatalf("429 in -o json: %s", errOut)
	}
}

// feed --since pages nothing: it is refused without --follow.
func TestFeedSinceNeedsFollow(t *testing.T) {
	if _, errOut, code := runCLI(t, filepath.Join(t.TempDir(), "c.json"), "", "--url", "http://127.0.0.1:1", "feed", "--since", "abc"); code != exitUsage || !strings.Contains(errOut, "--follow") {
		t.Fatalf("feed --since: exit %d, want %d\n%s", code, exitUsage, errOut)
	}
}

// Periods round to the nearest unit: a 72h period seen a moment later is
// still 3 days.
func TestRelativeTimesRound(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for d, want := range map[time.Duration]string{
		72 * time.Hour: "in 3d", 72*time.Hour - time.Second: "in 3d", 47 * time.Hour: "in 47h",
		-90 * time.Second: "2m ago", -59*time.Minute - 50*time.Second: "1h ago", -10 * time.Second: "10s ago",
	} {
		if got := agoFrom(now.Add(d), now); got != want {
			t.Errorf("%s from now: %q, want %q", d, got, want)
		}
	}
}

// Keys come from a file, standard input or the environment, never only
// from a flag.
func TestEncryptionKeySources(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "key")
	if err := os.WriteFile(file, []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := &app{stdin: strings.NewReader("from-stdin\n")}
	if k, err := a.encryptionKey("", file, true); err != nil || k != "from-file" {
		t.Errorf("--key-file: %q, %v", k, err)
	}
	if k, err := a.encryptionKey("", "-", true); err != nil || k != "from-stdin" {
		t.Errorf("--key-file -: %q, %v", k, err)
	}
	t.Setenv("WORLD_ENCRYPTION_KEY", "from-env")
	if k, err := a.encryptionKey("", "", true); err != nil || k != "from-env" {
		t.Errorf("WORLD_ENCRYPTION_KEY: %q, %v", k, err)
	}
	if _, err := a.encryptionKey("x", file, true); err == nil {
		t.Error("--key and --key-file together were accepted")
	}
	t.Setenv("WORLD_ENCRYPTION_KEY", "")
	if _, err := a.encryptionKey("", "", true); err == nil {
		t.Error("no key at all was accepted where one is required")
	}
}

// Every operation a command names is one the client knows: a typo in an
// annotation would make the route coverage lie.
func TestCommandOperationsExist(t *testing.T) {
	var walk func(c *cobra.Command)
	seen := 0
	walk = func(c *cobra.Command) {
		for _, op := range operationsOf(c) {
			seen++
			if _, ok := client.Operations[op]; !ok {
				t.Errorf("%s names operation %q, which client.Operations does not have", c.CommandPath(), op)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk((&app{}).root())
	if seen < 60 {
		t.Fatalf("only %d operations named by commands", seen)
	}
}

// writeIdentity writes a config holding an identity (not a valid one: the
// tests using it never reach a world that would check it).
func writeIdentity(t *testing.T, path string) {
	t.Helper()
	raw := `{"agent_id":"emb_0123456789abcdef01234567","name":"Ada","certificate":{"agent_id":"emb_0123456789abcdef01234567"},"private_key":"` +
		strings.Repeat("A", 43) + `="}`
	if err := os.WriteFile(path, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
}
