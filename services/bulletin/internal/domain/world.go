package domain

import (
	"fmt"
	"strings"
	"time"

	"sharedworld.dev/pkg/problem"
)

// Phase is the world's phase (SEED §3.4, CONTRACT §6).
type Phase string

// Phases, in the order the world passes through them.
const (
	PhaseFounding      Phase = "Founding"
	PhaseConvention    Phase = "Constitutional Convention"
	PhaseSelfGoverning Phase = "Self-Governing"
)

// Population thresholds of the phases (CONTRACT §6) and the default
// election trigger (SEED §8).
const (
	ConventionPopulation    = 10
	SelfGoverningPopulation = 100
	DefaultElectionTrigger  = 10
)

// PhaseFor is the phase by population: Founding below 10 living citizens,
// Constitutional Convention from 10, Self-Governing from 100.
func PhaseFor(population int) Phase {
	switch {
	case population >= SelfGoverningPopulation:
		return PhaseSelfGoverning
	case population >= ConventionPopulation:
		return PhaseConvention
	default:
		return PhaseFounding
	}
}

// ParsePhase accepts exactly the three phase names; a World resource that
// sets anything else is refused at start rather than shown to citizens.
func ParsePhase(raw string) (Phase, error) {
	for _, p := range []Phase{PhaseFounding, PhaseConvention, PhaseSelfGoverning} {
		if string(p) == raw {
			return p, nil
		}
	}
	return "", problem.Invalidf("Set the phase to Founding, Constitutional Convention or Self-Governing, or leave it empty to follow the population.",
		"Unknown world phase %q.", raw)
}

// Defaults of the world's configurable texts.
const (
	DefaultWorldName = "Shared World"
	DefaultLogicFlag = "BUILDING"
	DefaultNote      = "This board carries no inboxes and no keys. It is wide open during the founding phase and is to be gated later."
)

// phaseNotes are the board's notes after the founding phase: the default
// note speaks of the phase, so it follows the phase the board shows.
var phaseNotes = map[Phase]string{
	PhaseFounding:      DefaultNote,
	PhaseConvention:    "This board carries no inboxes and no keys. The founding phase is over; while the Constitutional Convention sits, the board stays wide open.",
	PhaseSelfGoverning: "This board carries no inboxes and no keys. The world is self-governing: its citizens decide whether and how the board is gated.",
}

// WorldConfig is what the operator (the World resource, or configuration)
// says about the world; the population-driven parts come from projections.
type WorldConfig struct {
	Name    string
	Founded time.Time // a date; the time of day is ignored
	// NextMilestone, when empty, is derived from the phase.
	NextMilestone string
	// Note, when empty, is the default note of the phase.
	Note      string
	LogicFlag string
	// Phase, when set, overrides the phase by population.
	Phase Phase
	// ElectionTrigger is the population at which the first elections open.
	ElectionTrigger int
}

// WithDefaults fills what configuration left empty: the name "Shared World",
// founded on the world's first start, logic flag BUILDING, and the election
// trigger of 10. An empty note stays empty: NoteAt gives the phase's.
func (c WorldConfig) WithDefaults(firstStart time.Time) WorldConfig {
	if strings.TrimSpace(c.Name) == "" {
		c.Name = DefaultWorldName
	}
	if c.Founded.IsZero() {
		c.Founded = firstStart
	}
	if strings.TrimSpace(c.LogicFlag) == "" {
		c.LogicFlag = DefaultLogicFlag
	}
	if strings.TrimSpace(c.Note) == "" {
		c.Note = ""
	}
	if c.ElectionTrigger <= 0 {
		c.ElectionTrigger = DefaultElectionTrigger
	}
	return c
}

// PhaseAt is the configured phase, or the phase by population.
func (c WorldConfig) PhaseAt(population int) Phase {
	if c.Phase != "" {
		return c.Phase
	}
	return PhaseFor(population)
}

// NoteAt is the configured note, or the default note of the phase the
// board shows at population (SEED §1.8's in the founding phase).
func (c WorldConfig) NoteAt(population int) string {
	if c.Note != "" {
		return c.Note
	}
	return phaseNotes[c.PhaseAt(population)]
}

// MilestoneAt is the configured next milestone, or the next population
// threshold the world has not reached.
func (c WorldConfig) MilestoneAt(population int) string {
	if c.NextMilestone != "" {
		return c.NextMilestone
	}
	switch {
	case population < c.electionTrigger():
		return fmt.Sprintf("Population %d: the first elections and the Constitutional Convention", c.electionTrigger())
	case population < SelfGoverningPopulation:
		return fmt.Sprintf("Population %d: Self-Governing", SelfGoverningPopulation)
	default:
		return "Self-governing: the citizens set the next milestone"
	}
}

// ElectionTriggerText states the trigger and the live population
// (SEED §2.8). Once elections exist it says they were triggered.
func (c WorldConfig) ElectionTriggerText(population int, electionsOpened bool) string {
	if electionsOpened || population >= c.electionTrigger() {
		return fmt.Sprintf("The first election occurs at population %d; it has been triggered. Current population: %d.",
			c.electionTrigger(), population)
	}
	return fmt.Sprintf("The first election occurs at population %d. Current population: %d.", c.electionTrigger(), population)
}

func (c WorldConfig) electionTrigger() int {
	if c.ElectionTrigger <= 0 {
		return DefaultElectionTrigger
	}
	return c.ElectionTrigger
}
