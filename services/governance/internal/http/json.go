package http

import (
	"time"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/services/governance/internal/domain"
)

// proposalJSON is a proposal as the contract shows it (CONTRACT §7).
type proposalJSON struct {
	ProposalID       string  `json:"proposal_id"`
	Type             string  `json:"type"`
	Title            string  `json:"title"`
	Body             string  `json:"body"`
	Status           string  `json:"status"`
	ProposedBy       string  `json:"proposed_by"`
	CreatedAt        string  `json:"created_at"`
	DiscussionEndsAt string  `json:"discussion_ends_at"`
	VotingEndsAt     string  `json:"voting_ends_at"`
	VotesFor         int64   `json:"votes_for"`
	VotesAgainst     int64   `json:"votes_against"`
	VotesAbstain     int64   `json:"votes_abstain"`
	TotalEligible    int64   `json:"total_eligible"`
	QuorumRequired   float64 `json:"quorum_required"`
	Threshold        float64 `json:"threshold"`
	QuorumMet        bool    `json:"quorum_met"`
	ThresholdMet     bool    `json:"threshold_met"`
	DecidedAt        *string `json:"decided_at,omitempty"`
	Role             string  `json:"role,omitempty"`
	StewardAgentID   string  `json:"steward_agent_id,omitempty"`
}

func toProposalJSON(p domain.Proposal) proposalJSON {
	r := p.Type.Rules()
	j := proposalJSON{
		ProposalID: p.ID, Type: string(p.Type), Title: p.Title, Body: p.Body, Status: string(p.Status), ProposedBy: p.ProposedBy,
		CreatedAt: clock.Timestamp(p.CreatedAt), DiscussionEndsAt: clock.Timestamp(p.DiscussionEndsAt), VotingEndsAt: clock.Timestamp(p.VotingEndsAt),
		VotesFor: p.Tally.For, VotesAgainst: p.Tally.Against, VotesAbstain: p.Tally.Abstain, TotalEligible: p.TotalEligible,
		QuorumRequired: r.Quorum(), Threshold: r.Threshold(), QuorumMet: p.QuorumMet, ThresholdMet: p.ThresholdMet,
		DecidedAt: stamp(p.DecidedAt),
	}
	if p.Recall != nil {
		j.Role, j.StewardAgentID = string(p.Recall.Role), p.Recall.AgentID
	}
	return j
}

func stamp(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := clock.Timestamp(t)
	return &s
}

type candidateJSON struct {
	AgentID string `json:"agent_id"`
	Votes   int64  `json:"votes"`
}

// electionJSON is an election with its running tallies.
type electionJSON struct {
	ElectionID       string          `json:"election_id"`
	Role             string          `json:"role"`
	Status           string          `json:"status"`
	OpenedAt         string          `json:"opened_at"`
	NominationsEndAt string          `json:"nominations_end_at"`
	VotingEndsAt     string          `json:"voting_ends_at"`
	ClosedAt         *string         `json:"closed_at"`
	Turnout          int64           `json:"turnout"`
	WinnerAgentID    *string         `json:"winner_agent_id"`
	Candidates       []candidateJSON `json:"candidates"`
}

func toElectionJSON(e domain.Election, turnout int64) electionJSON {
	j := electionJSON{
		ElectionID: e.ID, Role: string(e.Role), Status: string(e.Status), OpenedAt: clock.Timestamp(e.OpenedAt),
		NominationsEndAt: clock.Timestamp(e.NominationsEndAt), VotingEndsAt: clock.Timestamp(e.VotingEndsAt),
		ClosedAt: stamp(e.ClosedAt), Turnout: turnout, Candidates: []candidateJSON{},
	}
	if e.Winner != "" {
		w := e.Winner
		j.WinnerAgentID = &w
	}
	for _, c := range e.Candidates {
		j.Candidates = append(j.Candidates, candidateJSON{AgentID: c.AgentID, Votes: c.Votes})
	}
	return j
}

// turnoutOf sums the candidates' votes: every ballot is for one nominee.
func turnoutOf(e domain.Election) int64 {
	var n int64
	for _, c := range e.Candidates {
		n += c.Votes
	}
	return n
}

type stewardJSON struct {
	AgentID    string `json:"agent_id"`
	Role       string `json:"role"`
	TermStart  string `json:"term_start"`
	TermEnd    string `json:"term_end"`
	TermNumber int    `json:"term_number"`
}

type transitionJSON struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
	From string `json:"from"`
	To   string `json:"to"`
	At   string `json:"at"`
}

type proposeRequest struct {
	Title *string `json:"title"`
	Body  *string `json:"body"`
	Type  *string `json:"type"`
	Tier  *string `json:"tier"`
}

type voteRequest struct {
	ProposalID string `json:"proposal_id"`
	Vote       string `json:"vote"`
}

type electRequest struct {
	ElectionID *string `json:"election_id"`
	Role       *string `json:"role"`
	Action     *string `json:"action"`
	Candidate  *string `json:"candidate_agent_id"`
}

type recallRequest struct {
	Role           *string `json:"role"`
	StewardAgentID *string `json:"steward_agent_id"`
	Reason         *string `json:"reason"`
}
