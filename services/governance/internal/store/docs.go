package store

import (
	"time"

	"sharedworld.dev/services/governance/internal/domain"
)

// ballotDoc is one ballot as stored: the voter and the sealed choice,
// never the choice.
type ballotDoc struct {
	Voter  string    `bson:"voter"`
	VoteID string    `bson:"vote_id"`
	Sealed []byte    `bson:"sealed"`
	CastAt time.Time `bson:"cast_at"`
}

type recallDoc struct {
	Role      string    `bson:"role"`
	AgentID   string    `bson:"agent_id"`
	TermStart time.Time `bson:"term_start"`
	Applied   bool      `bson:"applied"`
}

// proposalDoc is a proposal as stored. Day and Slot are the daily slot
// its proposal took (unique with ProposedBy); RecallPending marks a recall
// that passed and has not yet ended the term, so the check finds it.
type proposalDoc struct {
	ID               string      `bson:"_id"`
	Type             string      `bson:"type"`
	Title            string      `bson:"title"`
	Body             string      `bson:"body"`
	Status           string      `bson:"status"`
	ProposedBy       string      `bson:"proposed_by"`
	CreatedAt        time.Time   `bson:"created_at"`
	DiscussionEndsAt time.Time   `bson:"discussion_ends_at"`
	VotingEndsAt     time.Time   `bson:"voting_ends_at"`
	VotesFor         int64       `bson:"votes_for"`
	VotesAgainst     int64       `bson:"votes_against"`
	VotesAbstain     int64       `bson:"votes_abstain"`
	TotalEligible    int64       `bson:"total_eligible"`
	QuorumMet        bool        `bson:"quorum_met"`
	ThresholdMet     bool        `bson:"threshold_met"`
	DecidedAt        *time.Time  `bson:"decided_at"`
	Recall           *recallDoc  `bson:"recall"`
	RecallPending    bool        `bson:"recall_pending"`
	Ballots          []ballotDoc `bson:"ballots"`
	Day              string      `bson:"day"`
	Slot             int         `bson:"slot"`
	Version          uint64      `bson:"version"`
}

func (d *proposalDoc) set(p *domain.Proposal) {
	d.ID, d.Type, d.Title, d.Body, d.Status, d.ProposedBy = p.ID, string(p.Type), p.Title, p.Body, string(p.Status), p.ProposedBy
	d.CreatedAt, d.DiscussionEndsAt, d.VotingEndsAt = p.CreatedAt, p.DiscussionEndsAt, p.VotingEndsAt
	d.VotesFor, d.VotesAgainst, d.VotesAbstain = p.Tally.For, p.Tally.Against, p.Tally.Abstain
	d.TotalEligible, d.QuorumMet, d.ThresholdMet = p.TotalEligible, p.QuorumMet, p.ThresholdMet
	d.DecidedAt = nil
	if !p.DecidedAt.IsZero() {
		t := p.DecidedAt
		d.DecidedAt = &t
	}
	d.Recall, d.RecallPending = nil, false
	if r := p.Recall; r != nil {
		d.Recall = &recallDoc{Role: string(r.Role), AgentID: r.AgentID, TermStart: r.TermStart, Applied: r.Applied}
		d.RecallPending = p.Status == domain.Passed && !r.Applied
	}
	d.Ballots = make([]ballotDoc, len(p.Ballots))
	for i, b := range p.Ballots {
		d.Ballots[i] = ballotDoc{Voter: b.Voter, VoteID: b.VoteID, Sealed: b.Sealed, CastAt: b.CastAt}
	}
}

func (d *proposalDoc) proposal() *domain.Proposal {
	p := &domain.Proposal{
		ID: d.ID, Type: domain.ProposalType(d.Type), Title: d.Title, Body: d.Body, Status: domain.ProposalStatus(d.Status),
		ProposedBy: d.ProposedBy, CreatedAt: d.CreatedAt.UTC(), DiscussionEndsAt: d.DiscussionEndsAt.UTC(), VotingEndsAt: d.VotingEndsAt.UTC(),
		Tally:         domain.Tally{For: d.VotesFor, Against: d.VotesAgainst, Abstain: d.VotesAbstain},
		TotalEligible: d.TotalEligible, QuorumMet: d.QuorumMet, ThresholdMet: d.ThresholdMet, Version: d.Version,
	}
	if d.DecidedAt != nil {
		p.DecidedAt = d.DecidedAt.UTC()
	}
	if r := d.Recall; r != nil {
		p.Recall = &domain.RecallTarget{Role: domain.Office(r.Role), AgentID: r.AgentID, TermStart: r.TermStart.UTC(), Applied: r.Applied}
	}
	for _, b := range d.Ballots {
		p.Ballots = append(p.Ballots, domain.Ballot{Voter: b.Voter, VoteID: b.VoteID, Sealed: b.Sealed, CastAt: b.CastAt.UTC()})
	}
	return p
}

type candidateDoc struct {
	AgentID string `bson:"agent_id"`
	Votes   int64  `bson:"votes"`
}

// electionDoc is an election as stored; OpeningKey (role and opening
// instant) is unique, so an election is opened once however often the
// check that opens it is retried.
type electionDoc struct {
	ID               string         `bson:"_id"`
	Role             string         `bson:"role"`
	Status           string         `bson:"status"`
	OpeningKey       string         `bson:"opening_key"`
	OpenedAt         time.Time      `bson:"opened_at"`
	NominationsEndAt time.Time      `bson:"nominations_end_at"`
	VotingEndsAt     time.Time      `bson:"voting_ends_at"`
	ClosedAt         *time.Time     `bson:"closed_at"`
	Candidates       []candidateDoc `bson:"candidates"`
	Ballots          []ballotDoc    `bson:"ballots"`
	Living           int64          `bson:"living"`
	Winner           string         `bson:"winner_agent_id"`
	Version          uint64         `bson:"version"`
}

func openingKey(role domain.Office, at time.Time) string {
	return string(role) + "@" + at.UTC().Format(time.RFC3339Nano)
}

func (d *electionDoc) set(e *domain.Election) {
	d.ID, d.Role, d.Status = e.ID, string(e.Role), string(e.Status)
	d.OpeningKey = openingKey(e.Role, e.OpenedAt)
	d.OpenedAt, d.NominationsEndAt, d.VotingEndsAt = e.OpenedAt, e.NominationsEndAt, e.VotingEndsAt
	d.ClosedAt = nil
	if !e.ClosedAt.IsZero() {
		t := e.ClosedAt
		d.ClosedAt = &t
	}
	d.Candidates = make([]candidateDoc, len(e.Candidates))
	for i, c := range e.Candidates {
		d.Candidates[i] = candidateDoc{AgentID: c.AgentID, Votes: c.Votes}
	}
	d.Ballots = make([]ballotDoc, len(e.Ballots))
	for i, b := range e.Ballots {
		d.Ballots[i] = ballotDoc{Voter: b.Voter, VoteID: b.VoteID, Sealed: b.Sealed, CastAt: b.CastAt}
	}
	d.Living, d.Winner = e.Living, e.Winner
}

func (d *electionDoc) election() *domain.Election {
	e := &domain.Election{
		ID: d.ID, Role: domain.Office(d.Role), Status: domain.ElectionStatus(d.Status), OpenedAt: d.OpenedAt.UTC(),
		NominationsEndAt: d.NominationsEndAt.UTC(), VotingEndsAt: d.VotingEndsAt.UTC(), Candidates: []domain.Candidate{},
		Living: d.Living, Winner: d.Winner, Version: d.Version,
	}
	if d.ClosedAt != nil {
		e.ClosedAt = d.ClosedAt.UTC()
	}
	for _, c := range d.Candidates {
		e.Candidates = append(e.Candidates, domain.Candidate{AgentID: c.AgentID, Votes: c.Votes})
	}
	for _, b := range d.Ballots {
		e.Ballots = append(e.Ballots, domain.Ballot{Voter: b.Voter, VoteID: b.VoteID, Sealed: b.Sealed, CastAt: b.CastAt.UTC()})
	}
	return e
}

type termDoc struct {
	AgentID    string    `bson:"agent_id"`
	Start      time.Time `bson:"term_start"`
	End        time.Time `bson:"term_end"`
	Number     int       `bson:"term_number"`
	ElectionID string    `bson:"election_id"`
}

// officeDoc is one office, keyed by its role.
type officeDoc struct {
	ID           string     `bson:"_id"`
	Current      *termDoc   `bson:"current"`
	Last         *termDoc   `bson:"last"`
	OpenElection string     `bson:"open_election"`
	EmptiedAt    *time.Time `bson:"emptied_at"`
	Version      uint64     `bson:"version"`
}

func toTermDoc(t *domain.Term) *termDoc {
	if t == nil {
		return nil
	}
	return &termDoc{AgentID: t.AgentID, Start: t.Start, End: t.End, Number: t.Number, ElectionID: t.ElectionID}
}

func (t *termDoc) term() *domain.Term {
	if t == nil {
		return nil
	}
	return &domain.Term{AgentID: t.AgentID, Start: t.Start.UTC(), End: t.End.UTC(), Number: t.Number, ElectionID: t.ElectionID}
}

func (d *officeDoc) set(o *domain.OfficeState) {
	d.ID, d.Current, d.Last, d.OpenElection = string(o.Role), toTermDoc(o.Current), toTermDoc(o.Last), o.OpenElection
	d.EmptiedAt = nil
	if !o.EmptiedAt.IsZero() {
		t := o.EmptiedAt
		d.EmptiedAt = &t
	}
}

func (d *officeDoc) office() *domain.OfficeState {
	o := &domain.OfficeState{Role: domain.Office(d.ID), Current: d.Current.term(), Last: d.Last.term(), OpenElection: d.OpenElection, Version: d.Version}
	if d.EmptiedAt != nil {
		o.EmptiedAt = d.EmptiedAt.UTC()
	}
	return o
}
