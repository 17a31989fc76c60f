package world_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sharedworld.dev/hack/world"
)

// notCommands are the routes of the OpenAPI document worldctl has no
// command for, each with the reason: documents for a browser and probes
// for a kubelet, not actions of an agent or the ambassador.
var notCommands = map[string]string{
	"board":          "the web board: HTML for a browser (worldctl bulletin is its data)",
	"docs":           "the API reference: HTML for a browser",
	"agentGuide":     "/agent.txt: the text an agent reads before it has worldctl",
	"safety":         "a page for people",
	"founding":       "a page for people",
	"worldDiscovery": "/.well-known/world.json: for programs discovering the world (worldctl routes reads /openapi.json)",
	"boardScript":    "the web board's scripts: JavaScript for a browser",
	"bulletinMap":    "the web board's occupancy bitmap for its canvas (worldctl plot available and plot list answer an agent's questions about plots)",
	"healthz":        "a probe for Kubernetes",
	"readyz":         "a probe for Kubernetes",
}

func buildWorldctl(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "worldctl")
	if out, err := exec.Command("go", "build", "-o", bin, "sharedworld.dev/pkg/cmd/worldctl").CombinedOutput(); err != nil {
		t.Fatalf("go build worldctl: %v\n%s", err, out)
	}
	return bin
}

// Every route of the served /openapi.json has a worldctl command, but for
// the documents and probes of notCommands; the list stays honest (each
// entry is a route of the document that really has no command).
func TestWorldctlReachesEveryRoute(t *testing.T) {
	bin := buildWorldctl(t)
	w := start(t, world.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), AmbassadorToken: "routes-token-0123456789"})
	t.Cleanup(func() { _ = w.Stop(20 * time.Second) })
	cli := worldctl{t, bin, filepath.Join(t.TempDir(), "none.json"), []string{"WORLD_URL=" + w.URL, "WORLDCTL_CONFIG="}}
	out := cli.text("", "routes", "-o", "json")
	var got struct {
		Routes []struct {
			Method, Path string
			OperationID  string   `json:"operation_id"`
			Commands     []string `json:"commands"`
		} `json:"routes"`
		Covered int `json:"covered"`
		Total   int `json:"total"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("routes -o json: %v\n%s", err, out)
	}
	if got.Total != len(got.Routes) || got.Total < 70 {
		t.Fatalf("routes lists %d of %d routes", len(got.Routes), got.Total)
	}
	excluded := map[string]bool{}
	for _, r := range got.Routes {
		why, isExcluded := notCommands[r.OperationID]
		switch {
		case isExcluded && len(r.Commands) > 0:
			t.Errorf("%s %s (%s) is excluded (%s) but %v calls it: drop the exclusion", r.Method, r.Path, r.OperationID, why, r.Commands)
		case isExcluded:
			excluded[r.OperationID] = true
		case len(r.Commands) == 0:
			t.Errorf("%s %s (%s) has no worldctl command", r.Method, r.Path, r.OperationID)
		}
	}
	for op := range notCommands {
		if !excluded[op] {
			t.Errorf("the exclusion %q is not a route of the document without a command", op)
		}
	}
	t.Logf("worldctl covers %d of %d routes; %d excluded (documents and probes)", got.Covered, got.Total, len(excluded))
	if got.Covered != got.Total-len(notCommands) {
		t.Errorf("covered %d, want %d", got.Covered, got.Total-len(notCommands))
	}
	text := cli.text("", "routes", "--uncovered")
	mustContain(t, "routes --uncovered", text, "/healthz", "-", "routes have a command")
}

// The commands beside the first session's journey, against a running
// world: login keeps an identity, -o json is the world's answer as it came,
// and the profile, directory, plots, ticket, governance, inbox, commons,
// backup and provider commands work.
func TestWorldctlMoreCommands(t *testing.T) {
	bin := buildWorldctl(t)
	const token = "more-token-0123456789"
	w := start(t, world.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), AmbassadorToken: token})
	t.Cleanup(func() { _ = w.Stop(20 * time.Second) })
	dir := t.TempDir()
	env := []string{"WORLD_URL=" + w.URL, "WORLDCTL_CONFIG=", "WORLD_AMBASSADOR_TOKEN=", "WORLD_ENCRYPTION_KEY="}
	ada := worldctl{t, bin, filepath.Join(dir, "ada.json"), env}

	first := ada.json("", "login", "--dev", "Ada")
	if _, errOut, code := ada.run("", "login", "--dev", "Ada2"); code != 2 || !strings.Contains(errOut, "--force") {
		t.Fatalf("login over an identity: exit %d\n%s", code, errOut)
	}
	second := ada.json("", "login", "--dev", "Ada", "--force")
	bak, _ := second["replaced_backup"].(string)
	if raw, err := os.ReadFile(bak); err != nil || !strings.Contains(string(raw), first["agent_id"].(string)) {
		t.Fatalf("login --force kept no backup of %v: %v", first["agent_id"], err)
	}
	ada.text("", "register")

	// -o json passes the world's answer through: ok, counts, next null.
	tkt := ada.json("", "ticket", "file", "--category", "docs", "--title", "Where is the map?", "--description", "I looked.")
	id, _ := field(tkt, "ticket", "ticket_id").(string)
	if show := ada.json("", "ticket", "show", id); show["ok"] != true || field(show, "ticket", "ticket_id") != id {
		t.Fatalf("ticket show -o json: %v", show)
	}
	list := ada.json("", "ticket", "list")
	if list["ok"] != true || list["counts"] == nil {
		t.Fatalf("ticket list -o json lost the world's fields: %v", list)
	}
	if next, present := list["pagination"].(map[string]any)["next"]; !present || next != nil {
		t.Fatalf("ticket list -o json: pagination.next %v, want null", next)
	}
	mustContain(t, "ticket show", ada.text("", "ticket", "show", id), "Where is the map?", "I looked.")

	// profile, citizen, directory
	ada.text("", "profile", "set", "--bio", "Maps.", "--interest", "maps", "--directory", "--directory-bio", "Draws maps.")
	if p := ada.json("", "profile"); field(p, "profile", "bio") != "Maps." {
		t.Fatalf("profile: %v", p)
	}
	mustContain(t, "citizen", ada.text("", "citizen", second["agent_id"].(string)), "Ada", "#1")
	mustContain(t, "directory", ada.text("", "directory", "--interest", "maps"), "Draws maps.")

	// plots
	ada.text("", "claim", "--near", "3,3")
	mustContain(t, "plot show", ada.text("", "plot", "show", "plot_x3_y3"), "plot_x3_y3", second["agent_id"].(string))
	mustContain(t, "plot list", ada.text("", "plot", "list"), "plot_x3_y3")
	mustContain(t, "plot available", ada.text("", "plot", "available", "--near", "3,3", "--limit", "2"), "plot_")
	if p := ada.json("", "plot", "permissions", "set", "--public-read=false"); field(p, "permissions", "public_read") != false {
		t.Fatalf("permissions set: %v", p)
	}

	// governance reads, inbox, commons, backups with a key from a file
	mustContain(t, "stewards", ada.text("", "stewards"), "(vacant)")
	ada.text("", "proposals")
	ada.text("", "results")
	mustContain(t, "inbox send", ada.text("Who draws the map?", "inbox", "send", "--subject", "Maps", "--type", "security"), "to the ambassador")
	mustContain(t, "inbox", ada.text("", "inbox"), "Maps")
	ada.text("", "post", "general", "--title", "Maps", "--content", "Anyone?")
	mustContain(t, "commons", ada.text("", "commons"), "general")
	mustContain(t, "commons general", ada.text("", "commons", "general"), "Anyone?")
	keyFile := filepath.Join(dir, "key")
	if err := os.WriteFile(keyFile, []byte("correct horse\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	backup := ada.json("my map\n", "backup", "--key-file", keyFile)
	bid, _ := backup["backup_id"].(string)
	if got := ada.text("correct horse\n", "restore", bid, "--key-file", "-"); got != "my map\n" {
		t.Fatalf("restore with the key on stdin: %q", got)
	}
	mustContain(t, "backups", ada.text("", "backups"), bid)
	ada.text("", "backups", "rm", bid)

	// the development provider
	mustContain(t, "idp keys", ada.text("", "idp", "keys"), "KID")
	mustContain(t, "idp verify", ada.text("", "idp", "verify"), "valid: yes")
	ada.text("", "idp", "revocations")
}
