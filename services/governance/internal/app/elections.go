package app

import (
	"context"
	"fmt"

	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/services/governance/internal/domain"
)

// ElectRequest is a nomination or an election ballot.
type ElectRequest struct {
	ElectionID, Role, Action, Candidate *string
}

// ElectResult is what an accepted nomination or ballot answers.
type ElectResult struct {
	Election  domain.Election
	Action    string
	Candidate string
	// VoteID is set for a ballot.
	VoteID string
}

// Elect nominates (the candidate defaults to the caller) or votes.
func (a *App) Elect(ctx context.Context, agentID string, req ElectRequest) (ElectResult, error) {
	if req.Action == nil || (*req.Action != "nominate" && *req.Action != "vote") {
		return ElectResult{}, problem.Invalid(`"action" must be nominate or vote.`, `Send {"role": "chief", "action": "nominate"} or {"election_id": "elec_…", "action": "vote", "candidate_agent_id": "emb_…"}.`)
	}
	id, err := a.electionOf(ctx, req.ElectionID, req.Role)
	if err != nil {
		return ElectResult{}, err
	}
	candidate := agentID
	if req.Candidate != nil && *req.Candidate != "" {
		candidate = *req.Candidate
	} else if *req.Action == "vote" {
		return ElectResult{}, problem.Invalid(`Field "candidate_agent_id" is missing or empty.`, "Name the nominee you vote for; see the candidates with GET /api/world/elections/"+id+".")
	}
	if *req.Action == "nominate" {
		return a.nominate(ctx, id, candidate)
	}
	voteID := domain.NewVoteID()
	b := domain.Ballot{Voter: agentID, VoteID: voteID, CastAt: a.now()}
	b.Sealed = a.box.Seal(candidate, id, agentID, voteID)
	e, err := a.repo.ChangeElection(ctx, id, func(e *domain.Election) ([]domain.Event, error) {
		return nil, e.Vote(b, candidate)
	})
	if err != nil {
		return ElectResult{}, err
	}
	return ElectResult{Election: e.Snapshot(), Action: "vote", Candidate: candidate, VoteID: voteID}, nil
}

func (a *App) nominate(ctx context.Context, id, candidate string) (ElectResult, error) {
	living, err := a.citizens.IsLiving(ctx, candidate)
	if err != nil {
		return ElectResult{}, err
	}
	if !living {
		return ElectResult{}, problem.Conflict(fmt.Sprintf("%s is not a living citizen.", candidate), "Nominees must be living citizens; nominate a registered citizen, or yourself (omit candidate_agent_id).")
	}
	current, err := a.repo.Election(ctx, id)
	if err != nil {
		return ElectResult{}, err
	}
	consecutive := 0
	offices, err := a.repo.Offices(ctx)
	if err != nil {
		return ElectResult{}, err
	}
	for _, o := range offices {
		if o.Role == current.Role {
			consecutive = o.Consecutive(candidate)
		}
	}
	now := a.now()
	e, err := a.repo.ChangeElection(ctx, id, func(e *domain.Election) ([]domain.Event, error) {
		changed, err := e.Nominate(candidate, consecutive, now)
		if err == nil && !changed {
			err = domain.ErrNoChange
		}
		return nil, err
	})
	if err != nil {
		return ElectResult{}, err
	}
	return ElectResult{Election: e.Snapshot(), Action: "nominate", Candidate: candidate}, nil
}

// electionOf resolves the election named by id, or the election in
// progress for role. Named by both, they must agree: a role that is not the
// election's is a mistake to point out, not a field to ignore.
func (a *App) electionOf(ctx context.Context, rawID, rawRole *string) (string, error) {
	if rawID != nil && *rawID != "" {
		id, err := domain.ParseElectionID(*rawID)
		if err != nil || rawRole == nil || *rawRole == "" {
			return id, err
		}
		role, err := domain.ParseOffice(*rawRole)
		if err != nil {
			return "", err
		}
		e, err := a.repo.Election(ctx, id)
		if err != nil {
			return "", err
		}
		if e.Role != role {
			return "", problem.Invalid(fmt.Sprintf(`"election_id" names the %s election but "role" says %s.`, e.Role, role),
				`Send one of them, or both naming the same election; see GET /api/world/elections/`+id+".")
		}
		return id, nil
	}
	if rawRole == nil || *rawRole == "" {
		return "", problem.Invalid(`Name the election by "election_id" or "role".`, "List elections with GET /api/world/elections.")
	}
	role, err := domain.ParseOffice(*rawRole)
	if err != nil {
		return "", err
	}
	offices, err := a.repo.Offices(ctx)
	if err != nil {
		return "", err
	}
	for _, o := range offices {
		if o.Role == role && o.OpenElection != "" {
			return o.OpenElection, nil
		}
	}
	return "", problem.NotFound(fmt.Sprintf("No election is in progress for %s.", role),
		"Elections open when the population reaches the trigger and when an office empties; see GET /api/world/elections.")
}

// Election returns one election with its running tallies.
func (a *App) Election(ctx context.Context, rawID string) (domain.Election, error) {
	id, err := domain.ParseElectionID(rawID)
	if err != nil {
		return domain.Election{}, err
	}
	e, err := a.repo.Election(ctx, id)
	if err != nil {
		return domain.Election{}, err
	}
	return e.Snapshot(), nil
}

// Elections lists elections, newest first.
func (a *App) Elections(ctx context.Context, q domain.ElectionQuery) ([]domain.Election, error) {
	return a.repo.Elections(ctx, q)
}

// Stewards returns the offices (their running terms) and the vacant roles.
func (a *App) Stewards(ctx context.Context) ([]domain.OfficeState, []domain.Office, error) {
	offices, err := a.repo.Offices(ctx)
	if err != nil {
		return nil, nil, err
	}
	var vacant []domain.Office
	var held []domain.OfficeState
	for _, o := range offices {
		if o.Current == nil {
			vacant = append(vacant, o.Role)
		} else {
			held = append(held, o)
		}
	}
	return held, vacant, nil
}
