package domain

import (
	"fmt"
	"time"
	"unicode/utf8"

	"sharedworld.dev/pkg/problem"
)

// Length limits of CONTRACT §7, in Unicode code points (§11).
const (
	MaxTitleLength = 200
	MaxBodyLength  = 10000
)

// Tally is a proposal's counters.
type Tally struct{ For, Against, Abstain int64 }

// Ballots is every ballot of the tally, abstentions included.
func (t Tally) Ballots() int64 { return t.For + t.Against + t.Abstain }

// Ballot is one accepted ballot as kept: the voter, the ballot's id and
// its choice sealed (encrypted) — never the choice itself.
type Ballot struct {
	Voter  string
	VoteID string
	Sealed []byte
	CastAt time.Time
}

// RecallTarget is the steward a recall proposal names: the office and the
// term (agent and start) it would end, so that a later term of the same
// agent is never ended by an old recall.
type RecallTarget struct {
	Role      Office
	AgentID   string
	TermStart time.Time
	// Applied is set once the passed recall has ended the term.
	Applied bool
}

// Proposal is a proposal with its ballots.
type Proposal struct {
	ID               string
	Type             ProposalType
	Title, Body      string
	Status           ProposalStatus
	ProposedBy       string
	CreatedAt        time.Time
	DiscussionEndsAt time.Time
	VotingEndsAt     time.Time
	Tally            Tally
	// TotalEligible is frozen when voting opens: the living citizens then.
	TotalEligible int64
	QuorumMet     bool
	ThresholdMet  bool
	// DecidedAt is zero until the proposal is passed or failed; it is the
	// voting deadline, whenever the check that decided it ran.
	DecidedAt time.Time
	Recall    *RecallTarget
	Ballots   []Ballot
	Version   uint64
}

// ProposeRequest is a proposal as submitted.
type ProposeRequest struct {
	Title, Body *string
	Type, Tier  *string
}

// Draft is a validated proposal not yet stored.
type Draft struct {
	Type        ProposalType
	Title, Body string
	Recall      *RecallTarget
}

// ParseProposal validates a submission (CONTRACT §7, §11).
func ParseProposal(r ProposeRequest) (Draft, error) {
	t, err := ParseProposalType(r.Type, r.Tier)
	if err != nil {
		return Draft{}, err
	}
	title, err := text("title", r.Title, MaxTitleLength)
	if err != nil {
		return Draft{}, err
	}
	body, err := text("body", r.Body, MaxBodyLength)
	if err != nil {
		return Draft{}, err
	}
	return Draft{Type: t, Title: title, Body: body}, nil
}

// text checks a required string: missing or empty is invalid_request, over
// the limit is validation_failed.
func text(field string, v *string, limit int) (string, error) {
	if v == nil || *v == "" {
		return "", problem.Invalidf(fmt.Sprintf("Send %q as a non-empty string.", field), "Field %q is missing or empty.", field)
	}
	if n := utf8.RuneCountInString(*v); n > limit {
		return "", problem.Validation(fmt.Sprintf("%s is %d characters long; the limit is %d.", field, n, limit),
			fmt.Sprintf("Shorten %s to at most %d characters.", field, limit))
	}
	return *v, nil
}

// NewProposal makes the proposal of draft d at now. An emergency proposal
// has no discussion: it opens voting at once, freezing the living citizens
// counted now (living).
func NewProposal(id string, d Draft, by string, now time.Time, living int64) (*Proposal, ProposalCreated) {
	r := d.Type.Rules()
	p := &Proposal{
		ID: id, Type: d.Type, Title: d.Title, Body: d.Body, Status: Discussion, ProposedBy: by, CreatedAt: now,
		DiscussionEndsAt: now.Add(r.Discussion), VotingEndsAt: now.Add(r.Discussion + r.Voting), Recall: d.Recall, Version: 1,
	}
	if r.Discussion == 0 {
		p.Status, p.TotalEligible = Voting, living
		p.judge()
	}
	return p, ProposalCreated{Proposal: p.Snapshot()}
}

// Snapshot is a copy without the ballots (what lists and events show).
func (p *Proposal) Snapshot() Proposal {
	s := *p
	s.Ballots = nil
	if p.Recall != nil {
		r := *p.Recall
		s.Recall = &r
	}
	return s
}

// Open reports whether the proposal is still undecided.
func (p *Proposal) Open() bool { return p.Status == Discussion || p.Status == Voting }

// HasVoted reports whether voter already cast a ballot.
func (p *Proposal) HasVoted(voter string) bool {
	for _, b := range p.Ballots {
		if b.Voter == voter {
			return true
		}
	}
	return false
}

// Cast records a ballot: only while voting, once per voter, and only by a
// citizen who was living when voting opened (registered by then: the
// citizens total_eligible counts), so that the ballots never outnumber
// total_eligible. The choice moves the counters; what is kept of it is
// sealed. registered is when the voter became a citizen.
func (p *Proposal) Cast(b Ballot, c Choice, registered time.Time) (VoteCast, error) {
	if p.Status != Voting {
		return VoteCast{}, problem.Conflict(fmt.Sprintf("Proposal status is %s, not voting", p.Status), notVotingHint(p))
	}
	if opened := p.VotingOpenedAt(); registered.After(opened) {
		return VoteCast{}, problem.Permission("You became a citizen after voting on this proposal opened.",
			"Eligible are the citizens living when voting opened ("+opened.UTC().Format(time.RFC3339)+
				", counted in total_eligible); vote on proposals whose voting opens after your registration.")
	}
	if p.HasVoted(b.Voter) {
		return VoteCast{}, problem.Conflict("You have already voted on this proposal.",
			"One ballot per citizen per proposal; ballots cannot be changed. See the counters with GET /api/world/governance/results/"+p.ID+".")
	}
	switch c {
	case For:
		p.Tally.For++
	case Against:
		p.Tally.Against++
	default:
		p.Tally.Abstain++
	}
	p.Ballots = append(p.Ballots, b)
	p.Version++
	p.judge()
	return VoteCast{VoteID: b.VoteID, ProposalID: p.ID, CastAt: b.CastAt, Tally: p.Tally, Version: p.Version}, nil
}

// VotingOpenedAt is when voting opened, or opens: at discussion_ends_at
// (at creation for a proposal without discussion).
func (p *Proposal) VotingOpenedAt() time.Time { return p.DiscussionEndsAt }

func notVotingHint(p *Proposal) string {
	if p.Status == Discussion {
		return "Voting opens at " + p.DiscussionEndsAt.UTC().Format(time.RFC3339) + " (discussion_ends_at); vote then."
	}
	return "The proposal was decided; its result is final. Make a new proposal to revisit the question."
}

// judge recomputes quorum_met and threshold_met from the counters.
func (p *Proposal) judge() {
	p.QuorumMet, p.ThresholdMet = Judge(p.Type.Rules(), p.Tally, p.TotalEligible)
}

// Judge applies CONTRACT §7: quorum_met = total_eligible > 0 and all
// ballots ≥ quorum × total_eligible; threshold_met = for+against > 0 and
// for/(for+against) ≥ threshold, except that a simple majority needs
// for > against. Abstentions count toward quorum only.
func Judge(r Rules, t Tally, eligible int64) (quorumMet, thresholdMet bool) {
	quorumMet = eligible > 0 && t.Ballots()*100 >= r.QuorumPct*eligible
	decisive := t.For + t.Against
	if r.SimpleMajority {
		thresholdMet = decisive > 0 && t.For > t.Against
	} else {
		thresholdMet = decisive > 0 && t.For*100 >= r.ThresholdPct*decisive
	}
	return quorumMet, thresholdMet
}

// NextDeadline is when the proposal's next transition is due; false once
// it is decided.
func (p *Proposal) NextDeadline() (time.Time, bool) {
	switch p.Status {
	case Discussion:
		return p.DiscussionEndsAt, true
	case Voting:
		return p.VotingEndsAt, true
	}
	return time.Time{}, false
}

// Advance makes the one transition that is due at now, at its deadline's
// semantics: voting opens at discussion_ends_at with total_eligible frozen
// to living; the proposal is decided at voting_ends_at. Nothing is due
// before the deadline (not even a millisecond before); ok is false then.
func (p *Proposal) Advance(now time.Time, living int64) (ProposalStatusChanged, bool) {
	due, open := p.NextDeadline()
	if !open || now.Before(due) {
		return ProposalStatusChanged{}, false
	}
	from := p.Status
	if p.Status == Discussion {
		p.Status, p.TotalEligible = Voting, living
	} else {
		p.judge()
		p.Status, p.DecidedAt = Failed, due
		if p.QuorumMet && p.ThresholdMet {
			p.Status = Passed
		}
	}
	p.judge()
	p.Version++
	return ProposalStatusChanged{Proposal: p.Snapshot(), From: from, At: due}, true
}
