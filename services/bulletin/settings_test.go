package bulletin_test

import (
	"strings"
	"testing"
	"time"

	"sharedworld.dev/pkg/config"
	"sharedworld.dev/services/bulletin"
	"sharedworld.dev/services/bulletin/internal/domain"
)

func TestSettings(t *testing.T) {
	t.Parallel()
	s, err := config.LoadFrom[bulletin.Settings](map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	o, _ := s.Options()
	if o.MaxSubscribers != 1000 || o.SubscriberBuffer != 256 || o.Heartbeat != 15*time.Second || o.World.ElectionTrigger != 10 ||
		o.World.Name != "" || !o.World.Founded.IsZero() {
		t.Fatalf("defaults: %+v", o)
	}
	s, err = config.LoadFrom[bulletin.Settings](map[string]string{
		"WORLD_NAME": "Elsewhere", "WORLD_FOUNDED": "2026-01-02", "WORLD_PHASE": "Self-Governing", "WORLD_LOGIC_FLAG": "LIVE",
	})
	if err != nil {
		t.Fatal(err)
	}
	o, _ = s.Options()
	if o.World.Name != "Elsewhere" || o.World.Founded.Format(time.DateOnly) != "2026-01-02" || o.World.Phase != domain.PhaseSelfGoverning || o.World.LogicFlag != "LIVE" {
		t.Fatalf("ARCHITECTURE the World resource's fields: %+v", o.World)
	}
	bad := []map[string]string{
		{"WORLD_FOUNDED": "02/01/2026"},
		{"WORLD_PHASE": "Anarchy"},
		{"WORLD_ELECTION_TRIGGER": "0"},
		{"WORLD_BULLETIN_MAX_SUBSCRIBERS": "0"},
		{"WORLD_BULLETIN_HEARTBEAT_SECONDS": "-1"},
	}
	for _, env := range bad {
		if _, err := config.LoadFrom[bulletin.Settings](env); err == nil || !strings.Contains(err.Error(), "WORLD_") {
			t.Errorf("%v: want a configuration error naming the variable, got %v", env, err)
		}
	}
}
