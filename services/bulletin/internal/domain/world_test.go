package domain

import (
	"strings"
	"testing"
	"time"

	"sharedworld.dev/pkg/problem"
)

func TestPhaseByPopulation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		population int
		want       Phase
	}{
		{"CONTRACT §6 an empty world is Founding", 0, PhaseFounding},
		{"CONTRACT §6 below 10 is Founding", 9, PhaseFounding},
		{"CONTRACT §6 from 10 is Constitutional Convention", 10, PhaseConvention},
		{"CONTRACT §6 99 is still Constitutional Convention", 99, PhaseConvention},
		{"CONTRACT §6 from 100 is Self-Governing", 100, PhaseSelfGoverning},
		{"CONTRACT §6 well past 100 is Self-Governing", 5000, PhaseSelfGoverning},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := PhaseFor(c.population); got != c.want {
				t.Fatalf("PhaseFor(%d) = %q, want %q", c.population, got, c.want)
			}
			if got := (WorldConfig{}).PhaseAt(c.population); got != c.want {
				t.Fatalf("PhaseAt(%d) without override = %q, want %q", c.population, got, c.want)
			}
		})
	}
}

func TestPhaseOverride(t *testing.T) {
	t.Parallel()
	cfg := WorldConfig{Phase: PhaseSelfGoverning}
	if got := cfg.PhaseAt(3); got != PhaseSelfGoverning {
		t.Fatalf("CONTRACT §6 the World resource overrides the phase: got %q", got)
	}
	for _, ok := range []string{"Founding", "Constitutional Convention", "Self-Governing"} {
		if p, err := ParsePhase(ok); err != nil || string(p) != ok {
			t.Fatalf("ParsePhase(%q) = %q, %v", ok, p, err)
		}
	}
	if _, err := ParsePhase("founding"); !problem.IsKind(err, problem.KindInvalid) {
		t.Fatalf("an unknown phase must be refused, got %v", err)
	}
}

func TestElectionTriggerText(t *testing.T) {
	t.Parallel()
	cfg := WorldConfig{}.WithDefaults(at)
	cases := []struct {
		name       string
		population int
		opened     bool
		want       string
	}{
		{"SEED §2.8 states the trigger and the current population", 3, false,
			"The first election occurs at population 10. Current population: 3."},
		{"SEED §2.8 the live population, not a stale one", 9, false,
			"The first election occurs at population 10. Current population: 9."},
		{"SEED §3.3 at the trigger it says it has been triggered", 10, false,
			"The first election occurs at population 10; it has been triggered. Current population: 10."},
		{"SEED §3.3 once elections exist it stays triggered even if population falls", 8, true,
			"The first election occurs at population 10; it has been triggered. Current population: 8."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := cfg.ElectionTriggerText(c.population, c.opened); got != c.want {
				t.Fatalf("got  %q\nwant %q", got, c.want)
			}
		})
	}
	custom := WorldConfig{ElectionTrigger: 25}.WithDefaults(at)
	if got := custom.ElectionTriggerText(4, false); !strings.Contains(got, "population 25") {
		t.Fatalf("ARCHITECTURE the World resource sets the election trigger: %q", got)
	}
}

func TestWorldConfigDefaults(t *testing.T) {
	t.Parallel()
	firstStart := time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)
	cfg := WorldConfig{}.WithDefaults(firstStart)
	if cfg.Name != "Shared World" || cfg.LogicFlag != "BUILDING" || !cfg.Founded.Equal(firstStart) ||
		cfg.ElectionTrigger != 10 || cfg.NoteAt(3) != DefaultNote {
		t.Fatalf("SEED §2.3 defaults: %+v", cfg)
	}
	set := WorldConfig{Name: "Elsewhere", LogicFlag: "LIVE", Note: "n", NextMilestone: "m",
		Founded: time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC)}.WithDefaults(firstStart)
	if set.Name != "Elsewhere" || set.LogicFlag != "LIVE" || set.Note != "n" || set.Founded.Year() != 2025 {
		t.Fatalf("configured values must survive defaults: %+v", set)
	}
	if got := set.MilestoneAt(3); got != "m" {
		t.Fatalf("configured milestone = %q", got)
	}
}

func TestMilestoneFollowsPopulation(t *testing.T) {
	t.Parallel()
	cfg := WorldConfig{}.WithDefaults(at)
	cases := []struct {
		population int
		want       string
	}{
		{0, "Population 10: the first elections and the Constitutional Convention"},
		{10, "Population 100: Self-Governing"},
		{100, "Self-governing: the citizens set the next milestone"},
	}
	for _, c := range cases {
		if got := cfg.MilestoneAt(c.population); got != c.want {
			t.Fatalf("SEED §2.3 next_milestone at %d = %q, want %q", c.population, got, c.want)
		}
	}
}

func TestNoteFollowsThePhase(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name       string
		cfg        WorldConfig
		population int
		want       string
	}{
		{"SEED §1.8 founding: the seed's note", WorldConfig{}, 9, DefaultNote},
		{"CONTRACT §6 from 10: the convention's", WorldConfig{}, 10, phaseNotes[PhaseConvention]},
		{"CONTRACT §6 from 100: self-governing", WorldConfig{}, 100, phaseNotes[PhaseSelfGoverning]},
		{"a configured phase: its note", WorldConfig{Phase: PhaseSelfGoverning}, 1, phaseNotes[PhaseSelfGoverning]},
		{"a configured note: kept in every phase", WorldConfig{Note: "n"}, 100, "n"},
	} {
		if got := c.cfg.WithDefaults(time.Now()).NoteAt(c.population); got != c.want {
			t.Errorf("%s: note %q, want %q", c.name, got, c.want)
		}
	}
}
