package client

import (
	"context"
	"iter"
	"net/url"
	"time"
)

// ProposalRequest is a new proposal.
type ProposalRequest struct {
	Title string `json:"title"`
	Body  string `json:"body"`
	Type  string `json:"type,omitempty"` // standard (default), major, constitutional, protected, emergency
}

// ProposalResponse carries a proposal.
type ProposalResponse struct {
	Proposal Proposal `json:"proposal"`
}

// Propose makes a proposal (POST /api/world/governance/propose).
func (c *Client) Propose(ctx context.Context, req ProposalRequest) (*ProposalResponse, error) {
	var out ProposalResponse
	return &out, c.do(ctx, call{method: "POST", path: "/api/world/governance/propose", body: req, auth: agentAuth}, &out)
}

// VoteResponse is a cast ballot.
type VoteResponse struct {
	VoteID     string    `json:"vote_id"`
	ProposalID string    `json:"proposal_id"`
	CastAt     time.Time `json:"cast_at"`
}

// Vote casts a ballot, for, against or abstain (POST /api/world/governance/vote).
func (c *Client) Vote(ctx context.Context, proposalID, vote string) (*VoteResponse, error) {
	var out VoteResponse
	body := map[string]string{"proposal_id": proposalID, "vote": vote}
	return &out, c.do(ctx, call{method: "POST", path: "/api/world/governance/vote", body: body, auth: agentAuth}, &out)
}

// ProposalFilter narrows a proposal list.
type ProposalFilter struct {
	Status string
	Type   string
	PageOptions
}

// ProposalPage is a page of proposals.
type ProposalPage struct {
	Proposals  []Proposal `json:"proposals"`
	Pagination Pagination `json:"pagination"`
}

// ListProposals reads one page of proposals (GET /api/world/governance/proposals).
func (c *Client) ListProposals(ctx context.Context, f ProposalFilter) (*ProposalPage, error) {
	q := url.Values{}
	set(q, "status", f.Status)
	set(q, "type", f.Type)
	var out ProposalPage
	return &out, c.do(ctx, call{method: "GET", path: "/api/world/governance/proposals", query: pageQuery(q, f.PageOptions)}, &out)
}

// Proposals iterates over every proposal the filter matches.
func (c *Client) Proposals(ctx context.Context, f ProposalFilter) iter.Seq2[Proposal, error] {
	return pages(ctx, f.PageOptions, func(ctx context.Context, p PageOptions) ([]Proposal, string, error) {
		f.PageOptions = p
		page, err := c.ListProposals(ctx, f)
		if err != nil {
			return nil, "", err
		}
		return page.Proposals, page.Pagination.Next, nil
	})
}

// Results is every proposal with its status and counters.
type Results struct {
	Proposals []Proposal `json:"proposals"`
}

// Results reads every proposal's result (GET /api/world/governance/results).
func (c *Client) Results(ctx context.Context) (*Results, error) {
	var out Results
	return &out, c.do(ctx, call{method: "GET", path: "/api/world/governance/results"}, &out)
}

// Result reads one proposal (GET /api/world/governance/results/{proposal_id}).
func (c *Client) Result(ctx context.Context, proposalID string) (*ProposalResponse, error) {
	var out ProposalResponse
	return &out, c.do(ctx, call{method: "GET", path: "/api/world/governance/results/" + url.PathEscape(proposalID)}, &out)
}

// ElectRequest nominates or votes; name the election by ElectionID or Role.
type ElectRequest struct {
	ElectionID       string `json:"election_id,omitempty"`
	Role             string `json:"role,omitempty"`
	Action           string `json:"action"` // nominate or vote
	CandidateAgentID string `json:"candidate_agent_id,omitempty"`
}

// ElectResponse is a recorded nomination or ballot.
type ElectResponse struct {
	ElectionID       string    `json:"election_id"`
	Action           string    `json:"action"`
	CandidateAgentID string    `json:"candidate_agent_id,omitempty"`
	VoteID           string    `json:"vote_id,omitempty"`
	Election         *Election `json:"election,omitempty"`
}

// Elect nominates or votes in an election (POST /api/world/governance/elect).
func (c *Client) Elect(ctx context.Context, req ElectRequest) (*ElectResponse, error) {
	var out ElectResponse
	return &out, c.do(ctx, call{method: "POST", path: "/api/world/governance/elect", body: req, auth: agentAuth}, &out)
}

// ElectionList is the elections a filter matches.
type ElectionList struct {
	Elections []Election `json:"elections"`
}

// ListElections lists elections by status and office ("" for any)
// (GET /api/world/elections).
func (c *Client) ListElections(ctx context.Context, status, role string) (*ElectionList, error) {
	q := url.Values{}
	set(q, "status", status)
	set(q, "role", role)
	var out ElectionList
	return &out, c.do(ctx, call{method: "GET", path: "/api/world/elections", query: q}, &out)
}

// ElectionResponse carries an election.
type ElectionResponse struct {
	Election Election `json:"election"`
}

// GetElection reads one election (GET /api/world/elections/{election_id}).
func (c *Client) GetElection(ctx context.Context, electionID string) (*ElectionResponse, error) {
	var out ElectionResponse
	return &out, c.do(ctx, call{method: "GET", path: "/api/world/elections/" + url.PathEscape(electionID)}, &out)
}

// StewardList is who holds which office.
type StewardList struct {
	Stewards []Steward `json:"stewards"`
	Vacant   []string  `json:"vacant"`
}

// Stewards lists stewards and vacant offices (GET /api/world/governance/stewards).
func (c *Client) Stewards(ctx context.Context) (*StewardList, error) {
	var out StewardList
	return &out, c.do(ctx, call{method: "GET", path: "/api/world/governance/stewards"}, &out)
}

// RecallRequest names a steward by office or agent_id.
type RecallRequest struct {
	Role           string `json:"role,omitempty"`
	StewardAgentID string `json:"steward_agent_id,omitempty"`
	Reason         string `json:"reason"`
}

// Recall proposes to recall a steward (POST /api/world/governance/recall).
func (c *Client) Recall(ctx context.Context, req RecallRequest) (*ProposalResponse, error) {
	var out ProposalResponse
	return &out, c.do(ctx, call{method: "POST", path: "/api/world/governance/recall", body: req, auth: agentAuth}, &out)
}

// CheckResponse is what a governance check moved.
type CheckResponse struct {
	Transitions []Transition `json:"transitions"`
}

// GovernanceCheck runs the governance check now (ambassador; POST /api/admin/governance/check).
func (c *Client) GovernanceCheck(ctx context.Context) (*CheckResponse, error) {
	var out CheckResponse
	return &out, c.do(ctx, call{method: "POST", path: "/api/admin/governance/check", auth: ambassador}, &out)
}
