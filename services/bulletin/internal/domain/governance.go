package domain

import "time"

// Proposal statuses (CONTRACT §7).
const (
	ProposalDiscussion = "discussion"
	ProposalVoting     = "voting"
	ProposalPassed     = "passed"
	ProposalFailed     = "failed"
)

// Election statuses (CONTRACT §7).
const (
	ElectionNominating = "nominating"
	ElectionVoting     = "voting"
	ElectionClosed     = "closed"
)

// Proposal is the projection of one proposal. Its status and its counters
// keep separate versions: vote.cast moves only the counters.
type Proposal struct {
	ProposalID       string
	Type             string
	Title            string
	ProposedBy       string
	CreatedAt        time.Time
	DiscussionEndsAt time.Time
	VotingEndsAt     time.Time
	Status           string
	StatusVersion    uint64
	TotalEligible    int64
	Tally            Tally
	TallyVersion     uint64
}

// Kind is KindProposal.
func (p Proposal) Kind() RecordKind { return KindProposal }

// Key is the proposal_id.
func (p Proposal) Key() string { return p.ProposalID }

// Revision is the highest version applied.
func (p Proposal) Revision() uint64 { return max(p.StatusVersion, p.TallyVersion) }

// IsActive reports whether the proposal is still being discussed or voted on.
func (p Proposal) IsActive() bool {
	return p.Status == ProposalDiscussion || p.Status == ProposalVoting
}

// ApplyCreated takes in proposal.created.
func (p Proposal) ApplyCreated(e ProposalCreated) (Proposal, bool) {
	changed := fillString(&p.Type, e.Type)
	changed = fillString(&p.Title, e.Title) || changed
	changed = fillString(&p.ProposedBy, e.ProposedBy) || changed
	changed = fillTime(&p.CreatedAt, e.CreatedAt) || changed
	changed = fillTime(&p.DiscussionEndsAt, e.DiscussionEndsAt) || changed
	changed = fillTime(&p.VotingEndsAt, e.VotingEndsAt) || changed
	if e.Version > p.StatusVersion {
		p.Status, p.StatusVersion, changed = e.Status, e.Version, true
	}
	return p, changed
}

// ApplyStatusChanged takes in proposal.status_changed, which also carries
// the counters as they stood.
func (p Proposal) ApplyStatusChanged(e ProposalStatusChanged) (Proposal, bool) {
	changed := fillString(&p.Type, e.Type)
	changed = fillString(&p.Title, e.Title) || changed
	if e.Version > p.StatusVersion {
		p.Status, p.StatusVersion, changed = e.To, e.Version, true
		if e.TotalEligible > 0 {
			p.TotalEligible = e.TotalEligible
		}
	}
	if e.Version > p.TallyVersion {
		p.Tally, p.TallyVersion, changed = e.Tally, e.Version, true
	}
	return p, changed
}

// ApplyVoteCast takes in vote.cast.
func (p Proposal) ApplyVoteCast(e VoteCast) (Proposal, bool) {
	if e.Version <= p.TallyVersion {
		return p, false
	}
	p.Tally, p.TallyVersion = e.Tally, e.Version
	return p, true
}

// Election is the projection of one election.
type Election struct {
	ElectionID       string
	Role             string
	OpenedAt         time.Time
	NominationsEndAt time.Time
	VotingEndsAt     time.Time
	Status           string
	WinnerAgentID    string
	Version          uint64
}

// Kind is KindElection.
func (e Election) Kind() RecordKind { return KindElection }

// Key is the election_id.
func (e Election) Key() string { return e.ElectionID }

// Revision is the election's version.
func (e Election) Revision() uint64 { return e.Version }

// IsUpcoming reports whether the election is still to be decided.
func (e Election) IsUpcoming() bool {
	return e.Status == ElectionNominating || e.Status == ElectionVoting
}

// ApplyOpened takes in election.opened.
func (e Election) ApplyOpened(ev ElectionOpened) (Election, bool) {
	changed := fillString(&e.Role, ev.Role)
	changed = fillTime(&e.OpenedAt, ev.OpenedAt) || changed
	changed = fillTime(&e.NominationsEndAt, ev.NominationsEndAt) || changed
	changed = fillTime(&e.VotingEndsAt, ev.VotingEndsAt) || changed
	if ev.Version > e.Version {
		e.Status, e.Version, changed = ev.Status, ev.Version, true
	}
	return e, changed
}

// ApplyStatusChanged takes in election.status_changed.
func (e Election) ApplyStatusChanged(ev ElectionStatusChanged) (Election, bool) {
	changed := fillString(&e.Role, ev.Role)
	if ev.Version > e.Version {
		e.Status, e.WinnerAgentID, e.Version, changed = ev.To, ev.WinnerAgentID, ev.Version, true
	}
	return e, changed
}

// Steward is the projection of one office: who holds it, or held it last.
// Steward events carry no version; an office's terms are ordered by their
// start, and one agent's events arrive in order (they are keyed by agent_id),
// so a term can only be ended by its own holder.
type Steward struct {
	Role       string
	AgentID    string
	TermStart  time.Time
	TermEnd    time.Time
	TermNumber int64
	Active     bool
	EndedAt    time.Time
}

// Kind is KindSteward.
func (s Steward) Kind() RecordKind { return KindSteward }

// Key is the office (role).
func (s Steward) Key() string { return s.Role }

// Revision grows with every new term and once more when the term ends.
func (s Steward) Revision() uint64 {
	if s.TermStart.IsZero() {
		return 0
	}
	r := uint64(s.TermStart.UnixMilli()) * 2
	if !s.Active {
		r++
	}
	return r
}

// ApplyElected takes in steward.elected: a term that starts later than the
// one on record replaces it.
func (s Steward) ApplyElected(e StewardElected) (Steward, bool) {
	start := ms(e.TermStart)
	if !s.TermStart.IsZero() && !start.After(s.TermStart) {
		return s, false
	}
	return Steward{
		Role: e.Role, AgentID: e.AgentID, TermStart: start, TermEnd: ms(e.TermEnd),
		TermNumber: e.TermNumber, Active: true,
	}, true
}

// ApplyTermEnded takes in steward.term_ended: it ends the term on record
// only when that term is the agent's, still running, and began no later than
// the end (an old end redelivered cannot end the agent's next term).
func (s Steward) ApplyTermEnded(e StewardTermEnded) (Steward, bool) {
	if !s.Active || s.AgentID != e.AgentID || ms(e.EndedAt).Before(s.TermStart) {
		return s, false
	}
	s.Active, s.EndedAt = false, ms(e.EndedAt)
	return s, true
}
