package bulletin_test

import (
	"fmt"
	"strings"
	"testing"

	identityv1 "sharedworld.dev/proto/identity/v1"
	"sharedworld.dev/services/bulletin"
	"sharedworld.dev/services/bulletin/internal/domain"
)

// TestNoteFollowsThePhase: world.note speaks of the phase the bulletin
// shows (by population, or as configured), unless a note is configured.
func TestNoteFollowsThePhase(t *testing.T) {
	w := newWorld(t, bulletin.Options{World: domain.WorldConfig{Phase: domain.PhaseSelfGoverning}})
	world := w.bulletinDoc(t)["world"].(map[string]any)
	if world["phase"] != "Self-Governing" || strings.Contains(fmt.Sprint(world["note"]), "founding phase") ||
		!strings.Contains(fmt.Sprint(world["note"]), "self-governing") {
		t.Fatalf("CONTRACT §6 a Self-Governing world's note: %v", world)
	}

	w = newWorld(t, bulletin.Options{})
	world = w.bulletinDoc(t)["world"].(map[string]any)
	if world["phase"] != "Founding" || !strings.Contains(fmt.Sprint(world["note"]), "founding phase") {
		t.Fatalf("SEED §1.8 a founding world's note: %v", world)
	}
	for i := 1; i <= 10; i++ {
		id := fmt.Sprintf("emb_%024x", i)
		w.kit.Publish(ev(id, &identityv1.CitizenRegistered{AgentId: id, CitizenNumber: int64(i), RegisteredAt: pb(sec(i)), Version: 1}, sec(i)))
	}
	w.waitRendered(t, "the Constitutional Convention's note", func(doc map[string]any) bool {
		world := doc["world"].(map[string]any)
		return world["phase"] == "Constitutional Convention" && strings.Contains(fmt.Sprint(world["note"]), "Constitutional Convention")
	})

	w = newWorld(t, bulletin.Options{World: domain.WorldConfig{Phase: domain.PhaseSelfGoverning, Note: "Kept as configured."}})
	if note := w.bulletinDoc(t)["world"].(map[string]any)["note"]; note != "Kept as configured." {
		t.Fatalf("a configured note is shown as configured: %v", note)
	}
}
