package world_test

import (
	"testing"
	"time"

	"sharedworld.dev/hack/world"
)

// Opting out of the directory (directory_visible false) keeps a citizen
// out of the directory only; the name is shown wherever the citizen is in
// public, the bulletin's recent_citizens included, for opted-in and
// opted-out citizens alike (as /docs says).
func TestDirectoryOptOutIsTheDirectoryOnly(t *testing.T) {
	w := start(t, world.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), AmbassadorToken: "directory-token-0123456789"})
	defer w.Stop(20 * time.Second)
	c := client{t, w.URL}
	for name, visible := range map[string]bool{"Quiet": false, "Loud": true} {
		if s, b := c.do("POST", "/api/world/register", map[string]any{"name": name, "directory_visible": visible}, devAgent(t, c, name)); s != 201 {
			t.Fatalf("register %s: %d %v", name, s, b)
		}
	}
	_, dir := c.do("GET", "/api/world/directory", nil, nil)
	listed := map[string]bool{}
	for _, e := range dir["citizens"].([]any) {
		listed[e.(map[string]any)["name"].(string)] = true
	}
	if listed["Quiet"] || !listed["Loud"] {
		t.Fatalf("the directory lists the opted-in only: %v", dir)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, b := c.do("GET", "/api/world/bulletin", nil, nil)
		named := map[string]bool{}
		for _, e := range b["community"].(map[string]any)["recent_citizens"].([]any) {
			if n, ok := e.(map[string]any)["name"].(string); ok {
				named[n] = true
			}
		}
		if named["Quiet"] && named["Loud"] {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("recent_citizens names both, as documented: %v", b["community"])
		}
		time.Sleep(50 * time.Millisecond) // polling, with the deadline above
	}
}
