package domain

import (
	"fmt"
	"time"

	"sharedworld.dev/pkg/problem"
)

// The election timetable and rules of CONTRACT §7.
const (
	NominationPeriod   = 48 * time.Hour
	ElectionVoting     = 72 * time.Hour
	TermLength         = 30 * 24 * time.Hour
	MaxConsecutive     = 3
	TurnoutPct         = 20
	DefaultTriggerSize = 10
)

// Candidate is a nominee and their running tally.
type Candidate struct {
	AgentID string
	Votes   int64
}

// Election is one office's election with its (sealed) ballots.
type Election struct {
	ID               string
	Role             Office
	Status           ElectionStatus
	OpenedAt         time.Time
	NominationsEndAt time.Time
	// VotingEndsAt is fixed when the election opens (§11).
	VotingEndsAt time.Time
	ClosedAt     time.Time
	Candidates   []Candidate
	Ballots      []Ballot
	// Living is the living citizens counted when the election closed, the
	// base of the turnout.
	Living  int64
	Winner  string
	Version uint64
}

// OpenElection opens role's election at at: nominating for 48 h, voting
// for 72 h after that.
func OpenElection(id string, role Office, at time.Time) (*Election, ElectionOpened) {
	e := &Election{ID: id, Role: role, Status: Nominating, OpenedAt: at, NominationsEndAt: at.Add(NominationPeriod),
		VotingEndsAt: at.Add(NominationPeriod + ElectionVoting), Candidates: []Candidate{}, Version: 1}
	return e, ElectionOpened{Election: e.Snapshot()}
}

// Snapshot is a copy without the ballots.
func (e *Election) Snapshot() Election {
	s := *e
	s.Ballots = nil
	s.Candidates = append([]Candidate{}, e.Candidates...)
	return s
}

// Turnout is the number of ballots cast.
func (e *Election) Turnout() int64 { return int64(len(e.Ballots)) }

func (e *Election) candidate(agentID string) int {
	for i, c := range e.Candidates {
		if c.AgentID == agentID {
			return i
		}
	}
	return -1
}

// Nominate adds a nominee while nominating. consecutive is the number of
// consecutive terms the nominee has just served in this office; a nominee
// who served the maximum cannot stand. Nominating someone twice is a no-op
// (changed false).
func (e *Election) Nominate(agentID string, consecutive int, now time.Time) (changed bool, err error) {
	if e.Status != Nominating {
		return false, problem.Conflict(fmt.Sprintf("Election status is %s, not nominating.", e.Status), e.phaseHint())
	}
	if consecutive >= MaxConsecutive {
		return false, problem.Conflict(fmt.Sprintf("%s has served %d consecutive terms as %s steward, the limit.", agentID, consecutive, e.Role),
			"Nominate another citizen; after another steward's term they may stand again.")
	}
	if e.candidate(agentID) >= 0 {
		return false, nil
	}
	e.Candidates = append(e.Candidates, Candidate{AgentID: agentID})
	e.Version++
	return true, nil
}

// Vote records a ballot for a nominee while voting, once per voter.
func (e *Election) Vote(b Ballot, candidate string) error {
	if e.Status != Balloting {
		return problem.Conflict(fmt.Sprintf("Election status is %s, not voting.", e.Status), e.phaseHint())
	}
	for _, x := range e.Ballots {
		if x.Voter == b.Voter {
			return problem.Conflict("You have already voted in this election.", "One ballot per citizen per election; ballots cannot be changed.")
		}
	}
	i := e.candidate(candidate)
	if i < 0 {
		return problem.Conflict(fmt.Sprintf("%s is not a nominee of this election.", candidate),
			"Vote for one of the candidates listed by GET /api/world/elections/"+e.ID+".")
	}
	e.Candidates[i].Votes++
	e.Ballots = append(e.Ballots, b)
	e.Version++
	return nil
}

func (e *Election) phaseHint() string {
	switch e.Status {
	case Nominating:
		return "Nominations close at " + e.NominationsEndAt.UTC().Format(time.RFC3339) + "; vote after that."
	case Balloting:
		return "Nominations are closed; vote for a candidate until " + e.VotingEndsAt.UTC().Format(time.RFC3339) + "."
	}
	return "The election is closed; see GET /api/world/governance/stewards."
}

// NextDeadline is when the election's next transition is due; false once closed.
func (e *Election) NextDeadline() (time.Time, bool) {
	switch e.Status {
	case Nominating:
		return e.NominationsEndAt, true
	case Balloting:
		return e.VotingEndsAt, true
	}
	return time.Time{}, false
}

// Advance makes the one transition due at now at its deadline: voting
// opens when nominations close; at the voting deadline the election closes
// with the plurality winner (Plurality) among living citizens counted now.
func (e *Election) Advance(now time.Time, living int64) (ElectionStatusChanged, bool) {
	due, open := e.NextDeadline()
	if !open || now.Before(due) {
		return ElectionStatusChanged{}, false
	}
	from := e.Status
	if e.Status == Nominating {
		e.Status = Balloting
	} else {
		e.Status, e.ClosedAt, e.Living = Closed, due, living
		e.Winner, _ = Plurality(e.Candidates, e.Turnout(), living)
	}
	e.Version++
	return ElectionStatusChanged{Election: e.Snapshot(), From: from, At: due}, true
}

// Plurality is the winner of CONTRACT §7: the candidate with the most votes,
// if turnout (ballots) is at least 20 % of living citizens and no other
// candidate has as many; otherwise none (the office stays vacant).
func Plurality(cands []Candidate, turnout, living int64) (string, bool) {
	if living <= 0 || turnout*100 < TurnoutPct*living {
		return "", false
	}
	best, tie := Candidate{}, false
	for _, c := range cands {
		switch {
		case c.Votes > best.Votes:
			best, tie = c, false
		case c.Votes == best.Votes && c.Votes > 0:
			tie = true
		}
	}
	if best.Votes == 0 || tie {
		return "", false
	}
	return best.AgentID, true
}
