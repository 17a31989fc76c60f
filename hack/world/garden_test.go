package world_test

import (
	"testing"
	"time"

	"sharedworld.dev/hack/world"
	"sharedworld.dev/pkg/testkit"
)

// The bulletin agrees with plots-storage about the garden. A
// removal, by its planter or by the ambassador, lowers the bulletin's count
// to what the storage lists; a repeated delete changes nothing.
func TestGardenRemovalReachesTheBulletin(t *testing.T) {
	const token = "garden-token-0123456789"
	w := start(t, world.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), AmbassadorToken: token})
	defer w.Stop(20 * time.Second)
	c := client{t, w.URL}
	ada := devAgent(t, c, "Ada")
	if status, body := c.do("POST", "/api/world/register", map[string]any{"name": "Ada"}, ada); status != 201 {
		t.Fatalf("register: %d %v", status, body)
	}
	for _, p := range []string{"/garden/ada/poem.md", "/garden/ada/song.md", "/garden/ada/tale.md"} {
		if status, body := c.do("POST", "/api/world/storage/write", map[string]any{"plot_id": "plot_0_0", "path": p, "content": "aGVsbG8="}, ada); status != 201 {
			t.Fatalf("plant %s: %d %v", p, status, body)
		}
	}
	gardenFiles := func() float64 {
		_, doc := c.do("GET", "/api/world/bulletin", nil, nil)
		f, _ := doc["garden"].(map[string]any)["files"].(float64)
		return f
	}
	listed := func() float64 {
		_, body := c.do("GET", "/api/world/storage/list?plot_id=plot_0_0&prefix=/garden/", nil, nil)
		n, _ := body["total"].(float64)
		return n
	}
	testkit.Eventually(t, 5*time.Second, "the bulletin counts 3 garden files", func() bool { return gardenFiles() == 3 })

	del := map[string]any{"plot_id": "plot_0_0", "path": "/garden/ada/poem.md"}
	if status, body := c.do("POST", "/api/world/storage/delete", del, ada); status != 200 {
		t.Fatalf("the planter's removal: %d %v", status, body)
	}
	if status, _ := c.do("POST", "/api/world/storage/delete", del, ada); status != 404 {
		t.Fatalf("a repeated removal: %d, want 404", status)
	}
	testkit.Eventually(t, 5*time.Second, "the bulletin counts 2 garden files", func() bool { return gardenFiles() == 2 })

	bearer := map[string]string{"Authorization": "Bearer " + token}
	if status, body := c.do("DELETE", "/api/admin/garden/ada/song.md", nil, bearer); status != 200 {
		t.Fatalf("the ambassador's removal: %d %v", status, body)
	}
	testkit.Eventually(t, 5*time.Second, "the bulletin counts 1 garden file", func() bool { return gardenFiles() == 1 })
	if n := listed(); n != 1 {
		t.Fatalf("plots-storage lists %v garden files, the bulletin 1", n)
	}
	// A planting after the removals counts from the lower number.
	if status, body := c.do("POST", "/api/world/storage/write", map[string]any{"plot_id": "plot_0_0", "path": "/garden/ada/new.md", "content": "aGVsbG8="}, ada); status != 201 {
		t.Fatalf("plant again: %d %v", status, body)
	}
	testkit.Eventually(t, 5*time.Second, "the bulletin counts 2 garden files again", func() bool { return gardenFiles() == 2 })
}
