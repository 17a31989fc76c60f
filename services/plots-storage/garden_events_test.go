package plotsstorage_test

import (
	"testing"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/proto/catalog"
	plotsv1 "sharedworld.dev/proto/plots/v1"
)

// removedOf decodes garden.removed events.
func removedOf(t *testing.T, evs []events.Event) []*plotsv1.GardenRemoved {
	t.Helper()
	out := make([]*plotsv1.GardenRemoved, 0, len(evs))
	for _, e := range evs {
		if e.Subject != commons {
			t.Fatalf("garden events are keyed by the commons: %s", e.Subject)
		}
		m, err := e.Decode()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m.(*plotsv1.GardenRemoved))
	}
	return out
}

// A removal tells the world, in the same write as the removal,
// so that the bulletin's garden count follows it. One event per removal;
// a repeated delete (404) tells nothing.
func TestGardenRemovalEmitsOneEvent(t *testing.T) {
	w := newWorld(t)
	log := w.watchPlots(t)
	ada := w.citizen("Ada")
	bob := w.citizen("Bob")
	w.write(t, ada, commons, "/garden/ada/poem.md", []byte("roses")).ExpectStatus(t, 201)
	w.write(t, ada, commons, "/garden/ada/song.md", []byte("la")).ExpectStatus(t, 201)
	w.write(t, bob, commons, "/garden/index.md", []byte("# garden")).ExpectStatus(t, 201)

	w.removeOwn(t, ada, "/garden/ada/poem.md").ExpectStatus(t, 200)
	w.removeOwn(t, ada, "/garden/ada/poem.md").ExpectError(t, 404, "not_found")
	w.removeOwn(t, bob, "/garden/ada/song.md").ExpectError(t, 403, "permission_denied")
	w.removeAsAmbassador(t, testkit.AmbassadorToken, "/garden/index.md").ExpectStatus(t, 200)
	w.removeAsAmbassador(t, testkit.AmbassadorToken, "/garden/index.md").ExpectError(t, 404, "not_found")
	// A planting after every removal: garden events share one key, so once
	// it arrived every event written before it has too.
	w.write(t, bob, commons, "/garden/bob/last.md", []byte("x")).ExpectStatus(t, 201)
	log.waitFor(t, catalog.TypeGardenPlanted, 3)

	got := removedOf(t, log.waitFor(t, catalog.TypeGardenRemoved, 0))
	if len(got) != 2 {
		t.Fatalf("%d garden.removed events for 2 removals (and 3 refused): %v", len(got), got)
	}
	type seen struct {
		path, agent, role, plantedBy string
		files                        int64
	}
	want := []seen{
		{"/garden/ada/poem.md", ada.ID, "", ada.ID, 2},
		{"/garden/index.md", "", "ambassador", "", 1},
	}
	for i, g := range got {
		s := seen{g.GetPath(), g.GetAgentId(), g.GetRole(), g.GetPlantedBy(), g.GetGardenFiles()}
		if s != want[i] || g.GetPlotId() != commons || g.GetAt() == nil {
			t.Fatalf("garden.removed %d: %+v (at %v), want %+v", i, s, g.GetAt(), want[i])
		}
	}
	last := log.waitFor(t, catalog.TypeGardenPlanted, 3)[2]
	m, _ := last.Decode()
	if n := m.(*plotsv1.GardenPlanted).GetGardenFiles(); n != 2 {
		t.Fatalf("the planting after the removals counts %d files, want 2", n)
	}
	// The removals are dated in the order of the garden's events.
	if !got[0].GetAt().AsTime().Before(got[1].GetAt().AsTime()) ||
		!got[1].GetAt().AsTime().Before(m.(*plotsv1.GardenPlanted).GetAt().AsTime()) {
		t.Fatalf("garden events out of date order: %v, %v, %v", got[0].GetAt(), got[1].GetAt(), m.(*plotsv1.GardenPlanted).GetAt())
	}
}
