//go:build !cluster

// The local runner only: the snapshot a clean stop of its one process
// writes of the in-memory copies.

package world_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sharedworld.dev/hack/world"
	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/metrics"
	"sharedworld.dev/pkg/testkit"
)

// mirrorLoads is how many in-memory copies the process filled from source
// (snapshot or scan) so far.
func mirrorLoads(t *testing.T, source string) float64 {
	return counted(t, "sharedworld_mirror_loads_total", "source", source)
}

// outboxSweeps is how many sweeps of every outbox the relays of the
// process did so far, all services together.
func outboxSweeps(t *testing.T) float64 {
	return counted(t, "sharedworld_outbox_sweeps_total", "", "")
}

// counted is the counter name of the process, summed over the series whose
// label is value (every series when label is empty).
func counted(t *testing.T, name, label, value string) float64 {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if label == "" {
				sum += m.GetCounter().GetValue()
			}
			for _, l := range m.GetLabel() {
				if label != "" && l.GetName() == label && l.GetValue() == value {
					sum += m.GetCounter().GetValue()
				}
			}
		}
	}
	return sum
}

// relays is the number of services of the world with an outbox relay:
// identity, plots-storage, tickets, governance, bulletin, messaging.
const relays = 6

// settled waits until every relay and consumer of the world is idle: a
// relay owing its start sweep is not, until it has swept.
func settled(t *testing.T) {
	t.Helper()
	testkit.Eventually(t, 20*time.Second, "the event pipeline at rest", func() bool {
		idle, _ := events.Pipeline()
		return idle
	})
}

// populate writes something into every store that keeps a copy: citizens
// (directory-visible, with interests), plots, files, backups, tickets (one
// acknowledged and upvoted), the feed, proposals, messages and commons posts.
func populate(t *testing.T, c client, token string) []map[string]string {
	t.Helper()
	admin := map[string]string{"Authorization": "Bearer " + token}
	var agents []map[string]string
	for i, name := range []string{"Ada", "Brook", "Cyan"} {
		h := devAgent(t, c, name)
		agents = append(agents, h)
		expect(t, c, "POST", "/api/world/register", map[string]any{"name": name, "directory_visible": i != 2,
			"directory_bio": name + " tends the garden.", "interests": []string{"gardens", fmt.Sprint("topic", i)}}, h, 201)
		expect(t, c, "POST", "/api/world/plots/claim", map[string]any{"coordinates": map[string]int{"x": 10 + i, "y": 3}}, h, 201)
		_, me := c.do("GET", "/api/world/whoami", nil, h)
		plot := fmt.Sprintf("plot_x%d_y3", 10+i)
		expect(t, c, "POST", "/api/world/storage/write", map[string]any{"plot_id": plot, "path": "/notes/" + name + ".md", "content": "aGVsbG8K"}, h, 201)
		expect(t, c, "POST", "/api/world/continuity/backup", map[string]any{"content": "bXkgbWVtb3J5", "encryption_key": "correct horse battery staple", "backup_type": "memory"}, h, 201)
		_, b := c.do("POST", "/api/world/tickets", map[string]any{"category": "bug", "title": name + "'s lamp", "description": "It flickers."}, h)
		if i == 0 {
			tid := b["ticket"].(map[string]any)["ticket_id"].(string)
			expect(t, c, "PATCH", "/api/admin/tickets/"+tid, map[string]any{"status": "acknowledged", "response": "Seen."}, admin, 200)
			_ = me
		}
	}
	for i, h := range agents {
		to := agents[(i+1)%len(agents)]["X-Agent-Id"]
		expect(t, c, "POST", "/api/world/message", map[string]any{"to_agent_id": to, "subject": "Hello", "content": "Hi there.", "encryption_key": "correct horse battery staple"}, h, 201)
		expect(t, c, "POST", "/api/world/commons/general", map[string]any{"title": "Hello", "content": "I am here."}, h, 201)
	}
	expect(t, c, "POST", "/api/world/governance/propose", map[string]any{"title": "Quiet hours", "body": "No tending at night."}, agents[0], 201)
	return agents
}

func expect(t *testing.T, c client, method, path string, body any, h map[string]string, status int) map[string]any {
	t.Helper()
	s, b := c.do(method, path, body, h)
	if s != status {
		t.Fatalf("%s %s: %d, want %d: %v", method, path, s, status, b)
	}
	return b
}

// lists are the answers of every list and search the copies serve.
func lists(t *testing.T, c client, agents []map[string]string) map[string]string {
	t.Helper()
	out := map[string]string{}
	get := func(path string, h map[string]string) {
		s, b := c.do("GET", path, nil, h)
		raw, _ := json.Marshal(b)
		out[path] = fmt.Sprintf("%d %s", s, raw)
	}
	for _, p := range []string{"/api/world/directory", "/api/world/directory?search=brook", "/api/world/directory?interest=gardens",
		"/api/world/tickets", "/api/world/tickets?status=open", "/api/world/tickets?status=acknowledged&limit=1",
		"/api/world/plots", "/api/world/plots/available?near_x=11&near_y=3&limit=5", "/api/world/events?limit=50",
		"/api/world/events?type=ticket", "/api/world/bulletin", "/api/world/governance/proposals", "/api/world/elections", "/api/world/commons/general"} {
		get(p, nil)
	}
	for i, h := range agents {
		get(fmt.Sprintf("/api/world/storage/list?plot_id=plot_x%d_y3#%d", 10+i, i), h)
		get(fmt.Sprintf("/api/world/continuity/list#%d", i), h)
		get(fmt.Sprintf("/api/world/messages#%d", i), h)
		get(fmt.Sprintf("/api/world/notifications#%d", i), h)
		get(fmt.Sprintf("/api/world/citizens/%s", h["X-Agent-Id"]), nil)
	}
	return out
}

// A restart after a clean stop reads every copy from the snapshot and
// answers every list as a start that scans; writes after it are kept. Its
// relays do not sweep the outboxes the clean stop left empty; a first
// start, which knows nothing of a last run, sweeps each.
func TestCleanRestartServesTheSnapshotAsAScanWould(t *testing.T) {
	token := "snapshot-token-0123456789"
	cfg := world.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), AmbassadorToken: token}
	sweepsBefore := outboxSweeps(t)
	w := start(t, cfg)
	c := client{t, w.URL}
	testkit.Eventually(t, 20*time.Second, "every relay's start sweep", func() bool { return outboxSweeps(t)-sweepsBefore == relays })
	agents := populate(t, c, token)
	if err := w.Stop(20 * time.Second); err != nil {
		t.Fatalf("stop: %v", err)
	}

	before, scansBefore := mirrorLoads(t, "snapshot"), mirrorLoads(t, "scan")
	sweepsBefore = outboxSweeps(t)
	w = start(t, cfg)
	// every copy: citizens, tickets, plots, files, garden files, backups,
	// the feed, proposals, elections, the seven of messaging, the
	// bulletin's eight projections and plots-storage's quota accounts and
	// content references (26)
	if got, scans := mirrorLoads(t, "snapshot")-before, mirrorLoads(t, "scan")-scansBefore; got != 26 || scans != 0 {
		t.Fatalf("a start after a clean stop read %v copies from the snapshot and scanned %v, want 26 and none", got, scans)
	}
	c = client{t, w.URL}
	// writes after a restart from the snapshot reach the copies
	expect(t, c, "POST", "/api/world/tickets", map[string]any{"category": "feature", "title": "After the restart", "description": "Seen?"}, agents[1], 201)
	expect(t, c, "PUT", "/api/world/profile", map[string]any{"bio": "Back again.", "directory_visible": true}, agents[2], 200)
	for deadline := time.Now().Add(5 * time.Second); ; {
		if _, b := c.do("GET", "/api/world/events?type=ticket", nil, nil); strings.Contains(fmt.Sprint(b), "After the restart") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the ticket filed after the restart never reached the feed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The board is drawn from projections that follow the feed: compare
	// once every event was applied everywhere.
	settled(t)
	restored := lists(t, c, agents)
	if got := outboxSweeps(t) - sweepsBefore; got != 0 {
		t.Fatalf("a start after a clean stop that published every event swept the outboxes %v times, want none", got)
	}
	for path, want := range map[string]string{"/api/world/tickets": "After the restart", "/api/world/directory?interest=gardens": "Cyan"} {
		if !strings.Contains(restored[path], want) {
			t.Fatalf("%s after a write following the restart: %s", path, restored[path])
		}
	}
	// the snapshot is taken at the start: a stop without one (requests
	// cut short, or a kill) leaves the next start to scan
	if err := w.Stop(20 * time.Second); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if err := os.RemoveAll(filepath.Join(cfg.DataDir, "mirrors")); err != nil {
		t.Fatal(err)
	}
	before = mirrorLoads(t, "snapshot")
	w = start(t, cfg)
	defer func() { _ = w.Stop(20 * time.Second) }()
	if got := mirrorLoads(t, "snapshot") - before; got != 0 {
		t.Fatalf("a start without the snapshot file read %v copies from it", got)
	}
	c = client{t, w.URL}
	scanned := lists(t, c, agents)
	for path, want := range scanned {
		if restored[path] != want {
			t.Errorf("%s\nfrom the snapshot: %s\nfrom a scan:       %s", path, restored[path], want)
		}
	}
}
