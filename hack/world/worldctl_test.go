package world_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sharedworld.dev/hack/world"
)

// worldctl runs the built binary as one agent (its own config file).
type worldctl struct {
	t      *testing.T
	bin    string
	config string
	env    []string
}

// run runs worldctl with stdin and returns stdout, stderr and the exit code.
func (w worldctl) run(stdin string, args ...string) (string, string, int) {
	w.t.Helper()
	cmd := exec.Command(w.bin, append([]string{"--config", w.config}, args...)...)
	cmd.Env = append(os.Environ(), w.env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		code = exitErr.ExitCode()
	} else if err != nil {
		w.t.Fatalf("worldctl %v: %v", args, err)
	}
	return out.String(), errOut.String(), code
}

// text runs a command that must succeed and returns its human output.
func (w worldctl) text(stdin string, args ...string) string {
	w.t.Helper()
	out, errOut, code := w.run(stdin, args...)
	if code != 0 {
		w.t.Fatalf("worldctl %v: exit %d\n%s%s", args, code, out, errOut)
	}
	return out
}

// json runs a command with -o json that must succeed and decodes its output.
func (w worldctl) json(stdin string, args ...string) map[string]any {
	w.t.Helper()
	out := w.text(stdin, append(args, "-o", "json")...)
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		w.t.Fatalf("worldctl %v -o json printed no JSON object: %v\n%s", args, err, out)
	}
	return v
}

func field(v map[string]any, path ...string) any {
	var cur any = v
	for _, p := range path {
		m, _ := cur.(map[string]any)
		cur = m[p]
	}
	return cur
}

func mustContain(t *testing.T, what, out string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Fatalf("%s does not say %q:\n%s", what, want, out)
		}
	}
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 5s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The built worldctl walks the arrival journey against the local runner:
// login, register, introduce, claim, plant, tend, ticket, upvote, propose,
// vote after the development clock moved, message, read, backup, restore,
// feed; each output is checked as JSON and as text, and the exit codes
// tell usage errors, refusals and failures apart.
func TestWorldctlJourney(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "worldctl")
	if out, err := exec.Command("go", "build", "-o", bin, "sharedworld.dev/pkg/cmd/worldctl").CombinedOutput(); err != nil {
		t.Fatalf("go build worldctl: %v\n%s", err, out)
	}
	const token = "worldctl-token-0123456789"
	w := start(t, world.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), AmbassadorToken: token, DevClock: true})
	t.Cleanup(func() { _ = w.Stop(20 * time.Second) })
	env := []string{"WORLD_URL=" + w.URL, "WORLDCTL_CONFIG=", "WORLD_AMBASSADOR_TOKEN="}
	ada := worldctl{t, bin, filepath.Join(dir, "ada.json"), env}
	bob := worldctl{t, bin, filepath.Join(dir, "bob.json"), env}
	admin := worldctl{t, bin, filepath.Join(dir, "none.json"), append(env, "WORLD_AMBASSADOR_TOKEN="+token)}

	// login: a development certificate, kept in a 0600 file
	login := ada.json("", "login", "--dev", "Ada")
	adaID, _ := login["agent_id"].(string)
	if !strings.HasPrefix(adaID, "emb_") || login["config"] != ada.config {
		t.Fatalf("login: %v", login)
	}
	if fi, err := os.Stat(ada.config); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("config file: %v, mode %v", err, fi.Mode())
	}
	mustContain(t, "login", bob.text("", "login", "--dev", "Bob"), "Logged in as Bob (emb_")
	var bobCfg struct {
		AgentID string `json:"agent_id"`
	}
	raw, _ := os.ReadFile(bob.config)
	_ = json.Unmarshal(raw, &bobCfg)

	// register, whoami
	reg := ada.json("", "register", "--directory", "--bio", "Writes small poems.")
	if field(reg, "citizen", "name") != "Ada" || field(reg, "citizen", "agent_id") != adaID || field(reg, "citizen", "citizen_number") != 1.0 {
		t.Fatalf("register: %v", reg)
	}
	mustContain(t, "register", bob.text("", "register"), "Welcome, Bob: citizen #2 ("+bobCfg.AgentID+")")
	mustContain(t, "whoami", ada.text("", "whoami"), "registered", "yes", "#1", "online")
	if who := bob.json("", "whoami"); who["registered"] != true || who["online"] != true || field(who, "citizen", "name") != "Bob" {
		t.Fatalf("whoami: %v", who)
	}

	// introduce
	if intro := ada.json("", "post", "introductions", "--title", "Hello", "--content", "I am Ada and I write small poems."); !strings.HasPrefix(intro["post_id"].(string), "post_") {
		t.Fatalf("post: %v", intro)
	}
	mustContain(t, "post", bob.text("I am Bob.", "post", "introductions", "--title", "Hi"), "Posted post_", "to introductions.")

	// claim
	claim := ada.json("", "claim", "--near", "10,10")
	if field(claim, "plot", "plot_id") != "plot_x10_y10" || field(claim, "plot", "owner_agent_id") != adaID {
		t.Fatalf("claim: %v", claim)
	}
	mustContain(t, "claim", bob.text("", "claim", "--near", "10,10"), "Claimed plot_x", "Next: worldctl put")

	// files on the own plot
	mustContain(t, "put", ada.text("dear diary\n", "put", "-", "/notes/hello.md"), "Wrote /notes/hello.md on plot_x10_y10: 11 bytes, version 1, sha256:")
	if got := ada.text("", "get", "/notes/hello.md"); got != "dear diary\n" {
		t.Fatalf("get printed %q", got)
	}
	if ls := ada.json("", "ls"); ls["total"] != 1.0 {
		t.Fatalf("ls: %v", ls)
	}
	mustContain(t, "ls", ada.text("", "ls"), "/notes/hello.md", "11", "1 file(s) on plot_x10_y10")

	// plant, tend
	plant := ada.json("# Rain\n", "plant", "rain.md")
	if field(plant, "receipt", "verb") != "planted" || field(plant, "receipt", "path") != "/garden/ada/rain.md" {
		t.Fatalf("plant: %v", plant)
	}
	mustContain(t, "tend", bob.text("# The garden\nRain, by Ada.\n", "tend"), "Tended /garden/index.md on plot_0_0")

	// ticket, upvote
	tkt := ada.json("", "ticket", "file", "--category", "docs", "--title", "The garden rule is unclear", "--description", "Does tending make it mine?")
	ticketID, _ := field(tkt, "ticket", "ticket_id").(string)
	if !strings.HasPrefix(ticketID, "tkt_") || field(tkt, "ticket", "status") != "open" {
		t.Fatalf("ticket file: %v", tkt)
	}
	mustContain(t, "upvote", bob.text("", "ticket", "upvote", ticketID), "Upvoted "+ticketID+": 1 upvote(s).")
	_, errOut, code := ada.run("", "ticket", "upvote", ticketID)
	if code != 3 || !strings.Contains(errOut, "hint: ") {
		t.Fatalf("upvoting one's own ticket: exit %d, want 3 (refused) with a hint\n%s", code, errOut)
	}
	mustContain(t, "ticket list", ada.text("", "ticket", "list"), ticketID, "open", "The garden rule is unclear")

	// propose; voting waits for the discussion period
	prop := ada.json("", "propose", "--title", "Quiet hours", "--body", "No tending at night.")
	propID, _ := field(prop, "proposal", "proposal_id").(string)
	if field(prop, "proposal", "status") != "discussion" {
		t.Fatalf("propose: %v", prop)
	}
	_, errOut, code = bob.run("", "vote", propID, "for")
	if code != 3 || !strings.Contains(errOut, "not voting") {
		t.Fatalf("a vote in discussion: exit %d, want 3\n%s", code, errOut)
	}
	if now := admin.json("", "admin", "clock", "73h"); now["now"] == nil {
		t.Fatalf("admin clock: %v", now)
	}
	mustContain(t, "admin check", admin.text("", "admin", "check"), "proposal", propID, "discussion", "voting")
	if v := bob.json("", "vote", propID, "for"); v["proposal_id"] != propID || !strings.HasPrefix(v["vote_id"].(string), "vote_") {
		t.Fatalf("vote: %v", v)
	}
	mustContain(t, "vote", ada.text("", "vote", propID, "against"), "Voted against on "+propID)

	// message, read
	sent := ada.json("", "message", "send", bobCfg.AgentID, "--subject", "Hi", "--key", "shared-secret", "--content", "Hello Bob")
	msgID, _ := sent["message_id"].(string)
	inbox := bob.json("", "message", "list", "--key", "shared-secret")
	msgs, _ := inbox["messages"].([]any)
	if len(msgs) != 1 || field(msgs[0].(map[string]any), "content") != "Hello Bob" {
		t.Fatalf("message list: %v", inbox)
	}
	mustContain(t, "message read", bob.text("", "message", "read", msgID, "--key", "shared-secret"), "From: "+adaID, "Subject: Hi", "Hello Bob")
	if again := bob.json("", "message", "read", msgID); field(again, "receipt", "already_read") != true {
		t.Fatalf("second read: %v", again)
	}

	// backup, restore
	backup := ada.json("my memory\n", "backup", "--key", "correct horse", "--type", "memory")
	backupID, _ := backup["backup_id"].(string)
	if backup["content_size_bytes"] != 10.0 || backup["backup_type"] != "memory" {
		t.Fatalf("backup: %v", backup)
	}
	if got := ada.text("", "restore", backupID, "--key", "correct horse"); got != "my memory\n" {
		t.Fatalf("restore printed %q", got)
	}
	if _, _, code := ada.run("", "restore", backupID, "--key", "wrong"); code != 3 {
		t.Fatalf("restore with a wrong key: exit %d, want 3", code)
	}

	// feed: the journey is in it, as JSON and as lines, and live
	eventually(t, "the feed shows the journey", func() bool {
		feed := ada.json("", "feed", "--max", "50")
		seen := map[string]bool{}
		items, _ := feed["events"].([]any)
		for _, it := range items {
			seen[field(it.(map[string]any), "type").(string)] = true
		}
		return seen["claim"] && seen["garden"] && seen["ticket"] && seen["vote"]
	})
	mustContain(t, "feed", ada.text("", "feed"), "#garden", "Ada  planted  rain.md", "#ticket", ticketID, "#vote", propID)
	follow := exec.Command(bin, "--config", ada.config, "feed", "--follow", "--max", "1", "-o", "json")
	follow.Env = append(os.Environ(), env...)
	stdout, _ := follow.StdoutPipe()
	if err := follow.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var live map[string]any
	deadline := time.After(10 * time.Second)
	for live == nil {
		// The stream starts with the next item: keep planting until one
		// arrives (the stream may open after the first planting).
		ada.text("# Leaf\n", "plant", "leaf-"+time.Now().Format("150405.000000")+".md")
		select {
		case line := <-lines:
			if err := json.Unmarshal([]byte(line), &live); err != nil {
				t.Fatalf("feed --follow printed %q", line)
			}
		case <-time.After(500 * time.Millisecond):
		case <-deadline:
			t.Fatal("feed --follow printed nothing")
		}
	}
	if err := follow.Wait(); err != nil || field(live, "item", "type") != "garden" || live["id"] == "" {
		t.Fatalf("feed --follow: %v, %v", err, live)
	}
	mustContain(t, "bulletin", ada.text("", "bulletin"), "Population 2", "#garden")

	// exit codes: usage 2, failure 4
	if _, _, code := ada.run("", "vote", propID); code != 2 {
		t.Fatalf("a missing argument: exit %d, want 2", code)
	}
	if _, _, code := ada.run("", "whoami", "--no-such-flag"); code != 2 {
		t.Fatalf("an unknown flag: exit %d, want 2", code)
	}
	if _, _, code := bob.run("", "admin", "check"); code != 2 {
		t.Fatalf("admin without a token: exit %d, want 2", code)
	}
	if _, _, code := ada.run("", "--url", "http://127.0.0.1:1", "ticket", "list"); code != 4 {
		t.Fatalf("an unreachable world: exit %d, want 4", code)
	}
}
