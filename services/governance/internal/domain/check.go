package domain

import "time"

// Step is the kind of work the governance check does for one item. At one
// instant the check applies them in this order: proposals move (a recall
// may pass), passed recalls end terms, terms expire, elections move,
// closed elections install their winners, and empty offices get elections.
type Step int

// The steps of the check, in their order at one instant.
const (
	StepProposal Step = iota
	StepRecall
	StepTerm
	StepElection
	StepInstall
	StepOpen
)

// Due is one item of work the check must do at At.
type Due struct {
	At   time.Time
	Step Step
	// ID is the proposal or election id, or the office for StepTerm and
	// StepOpen.
	ID string
}

// Before is the check's order: by deadline, then step, then id, so that
// a late check applies what it missed exactly as on-time checks would have.
func (d Due) Before(o Due) bool {
	if !d.At.Equal(o.At) {
		return d.At.Before(o.At)
	}
	if d.Step != o.Step {
		return d.Step < o.Step
	}
	return d.ID < o.ID
}

// Transition is one change the check made, as the contract reports it:
// kind proposal, election or steward.
type Transition struct {
	Kind     string
	ID       string
	From, To string
	At       time.Time
}

// The transition kinds of CONTRACT §11.
const (
	KindProposal = "proposal"
	KindElection = "election"
	KindSteward  = "steward"
)
