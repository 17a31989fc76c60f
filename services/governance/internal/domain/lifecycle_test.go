package domain

import (
	"testing"
	"time"

	"sharedworld.dev/pkg/problem"
)

var t0 = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

func draft(typ ProposalType) Draft { return Draft{Type: typ, Title: "t", Body: "b"} }

func TestProposalDeadlines(t *testing.T) {
	t.Parallel()
	for _, typ := range ProposalTypes {
		t.Run("§7 "+string(typ)+" moves at its deadlines, not a second before", func(t *testing.T) {
			r := typ.Rules()
			p, created := NewProposal("prop_00000001", draft(typ), "emb_a", t0, 10)
			if created.Proposal.ID != p.ID {
				t.Fatal("proposal.created names another proposal")
			}
			if r.Discussion == 0 {
				if p.Status != Voting || p.TotalEligible != 10 {
					t.Fatalf("emergency starts in voting with eligible frozen: %+v", p)
				}
			} else {
				if _, moved := p.Advance(p.DiscussionEndsAt.Add(-time.Second), 10); moved || p.Status != Discussion {
					t.Fatal("moved a second before discussion_ends_at")
				}
				ev, moved := p.Advance(p.DiscussionEndsAt.Add(time.Hour), 7)
				if !moved || p.Status != Voting || p.TotalEligible != 7 || !ev.At.Equal(t0.Add(r.Discussion)) {
					t.Fatalf("at or after the deadline: %+v %+v", p, ev)
				}
			}
			if !p.VotingEndsAt.Equal(t0.Add(r.Discussion + r.Voting)) {
				t.Fatalf("voting_ends_at = %v", p.VotingEndsAt)
			}
			if _, moved := p.Advance(p.VotingEndsAt.Add(-time.Second), 10); moved {
				t.Fatal("decided a second before voting_ends_at")
			}
			if _, moved := p.Advance(p.VotingEndsAt, 10); !moved || p.Status != Failed || !p.DecidedAt.Equal(p.VotingEndsAt) {
				t.Fatalf("no ballots: want failed at the deadline, got %+v", p)
			}
			if _, moved := p.Advance(p.VotingEndsAt.Add(time.Hour), 10); moved {
				t.Fatal("a decided proposal moved again")
			}
		})
	}
}

func TestCast(t *testing.T) {
	t.Parallel()
	p, _ := NewProposal("prop_00000001", draft(Standard), "emb_a", t0, 0)
	_, err := p.Cast(Ballot{Voter: "emb_b", VoteID: "vote_00000001"}, For, t0)
	if pe, ok := problem.As(err); !ok || pe.Kind != problem.KindConflict || pe.Message != "Proposal status is discussion, not voting" {
		t.Fatalf("§7 a ballot in discussion: %v", err)
	}
	p.Advance(p.DiscussionEndsAt, 4)
	tests := []struct {
		name       string
		voter      string
		registered time.Time
		choice     Choice
		want       Tally
		bad        bool
	}{
		{"§7 a ballot for", "emb_b", t0, For, Tally{For: 1}, false},
		{"§7 a second ballot by the same voter is 409, counters unchanged", "emb_b", t0, Against, Tally{For: 1}, true},
		{"§7 an abstention", "emb_c", t0, Abstain, Tally{For: 1, Abstain: 1}, false},
		{"§7 a citizen registered as voting opens is eligible", "emb_d", p.DiscussionEndsAt, Against, Tally{For: 1, Against: 1, Abstain: 1}, false},
		{"§7 a citizen registered after voting opened is not (403), counters unchanged", "emb_f", p.DiscussionEndsAt.Add(time.Millisecond), For, Tally{For: 1, Against: 1, Abstain: 1}, true},
	}
	for _, tt := range tests {
		ev, err := p.Cast(Ballot{Voter: tt.voter, VoteID: "vote_00000002"}, tt.choice, tt.registered)
		if tt.bad != (err != nil) || p.Tally != tt.want {
			t.Fatalf("%s: err %v tally %+v", tt.name, err, p.Tally)
		}
		if !tt.bad && ev.Tally != tt.want {
			t.Fatalf("%s: vote.cast carries %+v", tt.name, ev.Tally)
		}
	}
	if !p.QuorumMet || p.ThresholdMet {
		t.Fatalf("§7 3 of 4 ballots with a 1–1 tie: quorum met, threshold not: %+v", p)
	}
	p.Advance(p.VotingEndsAt, 4)
	if p.Status != Failed {
		t.Fatal("§7 a standard tie fails")
	}
	if _, err := p.Cast(Ballot{Voter: "emb_e"}, For, t0); err == nil {
		t.Fatal("§7 a ballot on a decided proposal is accepted")
	}
}

func TestPlurality(t *testing.T) {
	t.Parallel()
	c := func(votes ...int64) []Candidate {
		out := make([]Candidate, len(votes))
		for i, v := range votes {
			out[i] = Candidate{AgentID: string(rune('a' + i)), Votes: v}
		}
		return out
	}
	tests := []struct {
		name   string
		cands  []Candidate
		living int64
		winner string
	}{
		{"§7 the most votes wins", c(3, 1), 10, "a"},
		{"§7 turnout exactly 20% elects", c(1, 1, 2), 20, "c"},
		{"§7 turnout under 20% leaves the office vacant", c(3), 16, ""},
		{"§7 a tie for first leaves the office vacant", c(2, 2, 1), 10, ""},
		{"§7 a tie below first does not matter", c(3, 1, 1), 10, "a"},
		{"§7 no candidates: vacant", c(), 10, ""},
		{"§7 no living citizens: vacant", c(1), 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var turnout int64
			for _, x := range tt.cands {
				turnout += x.Votes
			}
			if got, _ := Plurality(tt.cands, turnout, tt.living); got != tt.winner {
				t.Fatalf("winner = %q, want %q", got, tt.winner)
			}
		})
	}
}

func TestElectionTimetable(t *testing.T) {
	t.Parallel()
	e, _ := OpenElection("elec_00000001", Chief, t0)
	if !e.NominationsEndAt.Equal(t0.Add(48*time.Hour)) || !e.VotingEndsAt.Equal(t0.Add(120*time.Hour)) {
		t.Fatalf("§11 voting_ends_at fixed at opening + 48 h + 72 h: %+v", e)
	}
	if _, err := e.Nominate("emb_a", 0, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Nominate("emb_b", MaxConsecutive, t0); err == nil {
		t.Fatal("§7 a steward after 3 consecutive terms could stand")
	}
	if err := e.Vote(Ballot{Voter: "emb_c"}, "emb_a"); err == nil {
		t.Fatal("§7 a ballot while nominating was accepted")
	}
	if _, moved := e.Advance(e.NominationsEndAt.Add(-time.Second), 5); moved {
		t.Fatal("voting opened a second early")
	}
	e.Advance(e.NominationsEndAt, 5)
	if _, err := e.Nominate("emb_d", 0, e.NominationsEndAt); err == nil {
		t.Fatal("§7 a nomination while voting was accepted")
	}
	if err := e.Vote(Ballot{Voter: "emb_c"}, "emb_x"); err == nil {
		t.Fatal("§7 a ballot for a non-nominee was accepted")
	}
	if err := e.Vote(Ballot{Voter: "emb_c"}, "emb_a"); err != nil {
		t.Fatal(err)
	}
	if err := e.Vote(Ballot{Voter: "emb_c"}, "emb_a"); err == nil {
		t.Fatal("§7 a second ballot in one election was accepted")
	}
	e.Advance(e.VotingEndsAt, 5)
	if e.Status != Closed || e.Winner != "emb_a" || !e.ClosedAt.Equal(e.VotingEndsAt) {
		t.Fatalf("§7 1 of 5 is 20%% turnout: %+v", e)
	}
}

func TestTerms(t *testing.T) {
	t.Parallel()
	o := &OfficeState{Role: Land}
	if at, needs := o.NeedsElection(t0); !needs || !at.Equal(t0) {
		t.Fatal("§11 a never-held office needs its first election")
	}
	start := t0
	for term := 1; term <= 3; term++ {
		e := Election{ID: "elec_0000000" + string(rune('0'+term)), Role: Land, Status: Closed, ClosedAt: start, Winner: "emb_a"}
		o.Link(e.ID)
		ev, _ := o.Install(e)
		if ev == nil || ev.Term.Number != term || !ev.Term.End.Equal(start.Add(30*24*time.Hour)) {
			t.Fatalf("§7 term %d: %+v", term, ev)
		}
		if _, ended := o.Expire(ev.Term.End.Add(-time.Second)); ended {
			t.Fatal("§7 a term ended a second early")
		}
		if end, ended := o.Expire(ev.Term.End); !ended || end.Reason != EndExpired {
			t.Fatal("§7 a term did not end at its end")
		}
		start = ev.Term.End.Add(120 * time.Hour)
	}
	if o.Consecutive("emb_a") != 3 {
		t.Fatal("§11 three consecutive terms not counted")
	}
	e := Election{ID: "elec_00000009", Role: Land, Status: Closed, ClosedAt: start, Winner: "emb_b"}
	o.Link(e.ID)
	ev, _ := o.Install(e)
	if ev.Term.Number != 1 || o.Consecutive("emb_a") != 0 {
		t.Fatal("§11 another steward restarts the count")
	}
	recalled := RecallTarget{Role: Land, AgentID: "emb_b", TermStart: ev.Term.Start}
	if _, ok := o.ApplyRecall(RecallTarget{Role: Land, AgentID: "emb_b", TermStart: t0}, start.Add(time.Hour)); ok {
		t.Fatal("§7 a recall of an earlier term ended the current one")
	}
	if end, ok := o.ApplyRecall(recalled, start.Add(time.Hour)); !ok || end.Reason != EndRecalled || o.Current != nil {
		t.Fatal("§7 a passed recall did not end the term at once")
	}
	if at, needs := o.NeedsElection(t0); !needs || !at.Equal(start.Add(time.Hour)) {
		t.Fatal("§7 after a recall the office needs an election from the recall")
	}
}

func TestDueOrder(t *testing.T) {
	t.Parallel()
	a := Due{At: t0, Step: StepOpen, ID: "a"}
	b := Due{At: t0.Add(time.Millisecond), Step: StepProposal, ID: "a"}
	c := Due{At: t0, Step: StepProposal, ID: "z"}
	if !a.Before(b) || !c.Before(a) || b.Before(c) {
		t.Fatal("§7 the check applies by deadline, then step, then id")
	}
}
