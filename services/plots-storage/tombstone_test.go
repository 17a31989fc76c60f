package plotsstorage_test

import (
	"net/http"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/citizens"
	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/proto/catalog"
	identityv1 "sharedworld.dev/proto/identity/v1"
	plotsv1 "sharedworld.dev/proto/plots/v1"
)

// TestATombstoneReleasesThePlot: citizen.tombstoned frees the citizen's
// plot with one plot.released (as an abandon would: the files go too), and
// a tombstone heard again, redelivered or repeated, releases nothing more.
func TestATombstoneReleasesThePlot(t *testing.T) {
	w := newWorld(t)
	log := w.watchPlots(t)
	ada, bob := w.citizen("Ada"), w.citizen("Bob")
	id := w.claim(t, ada, 4, 7)
	w.write(t, ada, id, "/notes.md", []byte("ada's")).ExpectStatus(t, 201)
	bobs := w.claim(t, bob, 5, 7)

	w.kit.Tombstone(ada)
	testkit.Eventually(t, 10*time.Second, "the tombstoned citizen's plot free", func() bool {
		return w.do(t, http.MethodGet, "/api/world/plots/"+id, nil, nil).Status == 404
	})
	released := log.waitFor(t, catalog.TypePlotReleased, 1)
	m, _ := released[0].Decode()
	if pr := m.(*plotsv1.PlotReleased); pr.GetPlotId() != id || pr.GetOwnerAgentId() != ada.ID || pr.GetX() != 4 || pr.GetY() != 7 || pr.GetVersion() != 2 {
		t.Fatalf("§4 plot.released of a tombstone: %v", pr)
	}

	// Heard again (a new delivery, at a newer version), then an update
	// of Ada on the same partition: once the projection holds the update,
	// the repeated tombstone was handled, without blocking the partition.
	w.kit.Tombstone(ada)
	w.kit.Publish(events.MustNew("/services/identity", ada.ID, &identityv1.CitizenUpdated{AgentId: ada.ID, Name: "Ada L", Version: 4}, time.Now()))
	testkit.Eventually(t, 10*time.Second, "the update after the repeated tombstone applied", func() bool {
		var c citizens.Citizen
		err := w.kit.DB.Collection("citizens").FindOne(w.kit.Ctx(), bson.M{"_id": ada.ID}).Decode(&c)
		return err == nil && c.Version == 4 && c.Tombstoned
	})
	// The cell is free for a next owner, who finds it empty; Bob's plot is untouched.
	carol := w.citizen("Carol")
	w.claim(t, carol, 4, 7)
	w.read(t, carol.Headers(), id, "/notes.md").ExpectError(t, 404, "not_found")
	w.do(t, http.MethodGet, "/api/world/plots/"+bobs, nil, nil).ExpectStatus(t, 200)
	log.waitFor(t, catalog.TypePlotClaimed, 4) // the commons, Ada, Bob, Carol: written after any second release
	if n := len(log.waitFor(t, catalog.TypePlotReleased, 1)); n != 1 {
		t.Fatalf("§4 a repeated tombstone released %d plots, want 1", n)
	}
}
