package domain

import "time"

// Event is something that happened in governance and must be published; the
// method that causes it returns it so the store writes it into the
// aggregate's outbox in the same write as the new state.
type Event interface{ governanceEvent() }

// ProposalCreated is proposal.created.
type ProposalCreated struct{ Proposal Proposal }

// ProposalStatusChanged is proposal.status_changed, at its deadline.
type ProposalStatusChanged struct {
	Proposal Proposal
	From     ProposalStatus
	At       time.Time
}

// VoteCast is vote.cast: the counters after the ballot, never the voter
// or the choice.
type VoteCast struct {
	VoteID, ProposalID string
	CastAt             time.Time
	Tally              Tally
	Version            uint64
}

// ElectionOpened is election.opened.
type ElectionOpened struct{ Election Election }

// ElectionStatusChanged is election.status_changed, at its deadline.
type ElectionStatusChanged struct {
	Election Election
	From     ElectionStatus
	At       time.Time
}

// StewardElected is steward.elected.
type StewardElected struct {
	Role Office
	Term Term
}

// StewardTermEnded is steward.term_ended.
type StewardTermEnded struct {
	Role    Office
	AgentID string
	EndedAt time.Time
	Reason  string
}

func (ProposalCreated) governanceEvent()       {}
func (ProposalStatusChanged) governanceEvent() {}
func (VoteCast) governanceEvent()              {}
func (ElectionOpened) governanceEvent()        {}
func (ElectionStatusChanged) governanceEvent() {}
func (StewardElected) governanceEvent()        {}
func (StewardTermEnded) governanceEvent()      {}
