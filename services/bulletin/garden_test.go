package bulletin_test

import (
	"net/http"
	"testing"

	plotsv1 "sharedworld.dev/proto/plots/v1"
	"sharedworld.dev/services/bulletin"
)

func gardenFiles(d map[string]any) float64 {
	f, _ := d["garden"].(map[string]any)["files"].(float64)
	return f
}

// A garden removal lowers the bulletin's garden count, and a
// repeated or stale removal changes nothing. CONTRACT §6 names the garden
// line's verbs (planted or tended) and the feed's other kinds, none of
// them a removal, so a removal adds no feed line.
func TestGardenRemovalLowersTheCount(t *testing.T) {
	w := newWorld(t, bulletin.Options{})
	planted := ev("plot_0_0", &plotsv1.GardenPlanted{PlotId: "plot_0_0", Path: "/garden/ada/poem.md", AgentId: ada, AgentName: "Ada", GardenFiles: 1, At: pb(sec(1))}, sec(1))
	second := ev("plot_0_0", &plotsv1.GardenPlanted{PlotId: "plot_0_0", Path: "/garden/ada/song.md", AgentId: ada, AgentName: "Ada", GardenFiles: 2, At: pb(sec(2))}, sec(2))
	removed := ev("plot_0_0", &plotsv1.GardenRemoved{PlotId: "plot_0_0", Path: "/garden/ada/poem.md", Role: "ambassador", PlantedBy: ada, GardenFiles: 1, At: pb(sec(3))}, sec(3))
	w.kit.Publish(planted, second)
	w.waitHandled(t, 2)
	w.waitRendered(t, "two plantings", func(d map[string]any) bool { return gardenFiles(d) == 2 })

	w.kit.Publish(removed)
	w.waitHandled(t, 3)
	doc := w.waitRendered(t, "the removal", func(d map[string]any) bool { return gardenFiles(d) == 1 })
	if lines := feedLines(doc); len(lines) != 2 {
		t.Fatalf("a removal adds no feed line: %q", lines)
	}
	etag := w.do(t, http.MethodGet, "/api/world/bulletin", nil, nil).Header["Etag"]

	// The same removal again (a relay republishing after a crash), and a
	// removal older than the one on record (another id, an earlier date).
	stale := ev("plot_0_0", &plotsv1.GardenRemoved{PlotId: "plot_0_0", Path: "/garden/ada/song.md", AgentId: ada, PlantedBy: ada, GardenFiles: 0, At: pb(sec(2))}, sec(2))
	w.kit.Publish(removed, planted, stale)
	w.waitHandled(t, 6)
	r := w.do(t, http.MethodGet, "/api/world/bulletin", nil, nil)
	if r.Header["Etag"] != etag || gardenFiles(r.Body) != 1 || len(feedLines(r.Body)) != 2 {
		t.Fatalf("a repeated or stale event changed the bulletin: garden %v, feed %q", r.Body["garden"], feedLines(r.Body))
	}
}
