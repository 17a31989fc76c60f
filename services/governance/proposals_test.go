package governance_test

import (
	"net/http"
	"sync"
	"testing"
	"time"
)

// Every type walks discussion → voting → passed and → failed, moving at
// its exact deadlines: one second before nothing moves.
func TestProposalWalks(t *testing.T) {
	types := []struct {
		typ        string
		pass, fail []string // ballots of 10 eligible citizens
	}{
		{"standard", []string{"for", "against", "for"}, []string{"for", "against"}},
		{"major", []string{"for", "for", "against"}, []string{"for", "against", "abstain"}},
		{"constitutional", []string{"for", "for", "for", "against", "abstain"}, []string{"for", "for", "for", "against"}},
		{"protected", []string{"for", "for", "for", "for", "for"}, []string{"for", "for", "for", "for", "against"}},
		{"emergency", []string{"for"}, []string{"abstain"}},
	}
	for _, tt := range types {
		for _, outcome := range []string{"passed", "failed"} {
			t.Run("§7 "+tt.typ+" to "+outcome, func(t *testing.T) {
				w := newWorld(t, 1000)
				cs := w.citizens(t, 10)
				p := w.propose(t, cs[0], tt.typ)
				id := p["proposal_id"].(string)
				discussionEnds, votingEnds := ts(t, p["discussion_ends_at"]), ts(t, p["voting_ends_at"])
				if tt.typ == "emergency" {
					if p["status"] != "voting" || p["total_eligible"] != float64(10) {
						t.Fatalf("§7 emergency starts in voting: %v", p)
					}
				} else {
					r := w.vote(t, cs[1], id, "for")
					r.ExpectError(t, 409, "conflict")
					if r.Body["message"] != "Proposal status is discussion, not voting" {
						t.Fatalf("message = %v", r.Body["message"])
					}
					w.at(discussionEnds.Add(-time.Second))
					if got := w.check(t); len(got) != 0 || w.proposal(t, id)["status"] != "discussion" {
						t.Fatalf("one second before discussion_ends_at: %v", got)
					}
					w.at(discussionEnds)
					got := w.check(t)
					if len(got) != 1 || got[0]["id"] != id || got[0]["from"] != "discussion" || got[0]["to"] != "voting" {
						t.Fatalf("at discussion_ends_at: %v", got)
					}
					if w.proposal(t, id)["total_eligible"] != float64(10) {
						t.Fatal("§7 total_eligible not frozen at 10 when voting opened")
					}
				}
				ballots := tt.pass
				if outcome == "failed" {
					ballots = tt.fail
				}
				for i, b := range ballots {
					w.vote(t, cs[i+1], id, b).ExpectStatus(t, 201)
				}
				w.citizens(t, 5) // later citizens do not change total_eligible
				w.at(votingEnds.Add(-time.Second))
				if got := w.check(t); len(got) != 0 {
					t.Fatalf("one second before voting_ends_at: %v", got)
				}
				w.at(votingEnds)
				got := w.check(t)
				if len(got) != 1 || got[0]["to"] != outcome {
					t.Fatalf("at voting_ends_at: %v", got)
				}
				final := w.proposal(t, id)
				if final["status"] != outcome || ts(t, final["decided_at"]) != votingEnds || final["total_eligible"] != float64(10) {
					t.Fatalf("decided: %v", final)
				}
				if got := w.check(t); len(got) != 0 {
					t.Fatalf("§11 a check with nothing due: %v", got)
				}
			})
		}
	}
}

func TestBallotOnePerCitizen(t *testing.T) {
	w := newWorld(t, 1000)
	cs := w.citizens(t, 3)
	id := w.propose(t, cs[0], "emergency")["proposal_id"].(string)
	w.vote(t, cs[1], id, "for").ExpectStatus(t, 201)
	w.vote(t, cs[1], id, "against").ExpectError(t, 409, "conflict")

	var wg sync.WaitGroup
	codes := make(chan int, 50)
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes <- w.vote(t, cs[2], id, "against").Status
		}()
	}
	wg.Wait()
	close(codes)
	created := 0
	for c := range codes {
		switch c {
		case 201:
			created++
		case 409:
		default:
			t.Fatalf("§7 a concurrent ballot answered %d", c)
		}
	}
	p := w.proposal(t, id)
	if created != 1 || p["votes_for"] != float64(1) || p["votes_against"] != float64(1) || p["votes_abstain"] != float64(0) {
		t.Fatalf("§7 50 concurrent ballots of one citizen: %d accepted, counters %v/%v", created, p["votes_for"], p["votes_against"])
	}
}

func TestProposeLimitsAndErrors(t *testing.T) {
	w := newWorld(t, 1000)
	cs := w.citizens(t, 1)
	a := cs[0]
	w.do(t, http.MethodPost, "/api/world/governance/propose", map[string]any{"title": "x"}, a.Headers()).ExpectError(t, 400, "invalid_request")
	w.do(t, http.MethodPost, "/api/world/governance/propose", map[string]any{"title": "x", "body": "y", "tier": "nope"}, a.Headers()).ExpectError(t, 400, "invalid_request")
	r := w.do(t, http.MethodPost, "/api/world/governance/propose", map[string]any{"title": "x", "body": "y", "tier": "major"}, a.Headers())
	r.ExpectStatus(t, 201)
	if r.Body["proposal"].(map[string]any)["type"] != "major" {
		t.Fatal("§7 tier is an alias of type")
	}
	w.propose(t, a, "standard")
	w.propose(t, a, "standard")
	w.do(t, http.MethodPost, "/api/world/governance/propose", map[string]any{"title": "x", "body": "y"}, a.Headers()).ExpectError(t, 429, "rate_limited")
	w.at(start.Add(15 * time.Hour)) // the next UTC day
	w.propose(t, a, "standard")
	w.vote(t, a, "prop_zzzz", "for").ExpectError(t, 404, "not_found")
	w.vote(t, a, "", "for").ExpectError(t, 400, "invalid_request")
	w.vote(t, a, "prop_00000000", "maybe").ExpectError(t, 400, "invalid_request")
	w.do(t, http.MethodGet, "/api/world/governance/proposals?status=open", nil, nil).ExpectError(t, 400, "invalid_request")
	w.do(t, http.MethodGet, "/api/world/governance/proposals?cursor=bad", nil, nil).ExpectError(t, 400, "invalid_request")
	w.do(t, http.MethodPost, "/api/admin/governance/check", nil, nil).ExpectError(t, 401, "unauthenticated")

	seen := map[string]bool{}
	next := ""
	for page := 0; page < 5; page++ {
		path := "/api/world/governance/proposals?type=standard&limit=1"
		if next != "" {
			path += "&cursor=" + next
		}
		r := w.do(t, http.MethodGet, path, nil, nil)
		r.ExpectStatus(t, 200)
		for _, p := range r.Body["proposals"].([]any) {
			id := p.(map[string]any)["proposal_id"].(string)
			if seen[id] {
				t.Fatalf("§1 %s repeated across pages", id)
			}
			seen[id] = true
		}
		n, _ := r.Body["pagination"].(map[string]any)["next"].(string)
		if next = n; next == "" {
			break
		}
	}
	if len(seen) != 3 {
		t.Fatalf("§7 the standard proposals over pages: %d, want 3", len(seen))
	}
}

// TestLatecomersDoNotVote: §7 total_eligible is the living citizens when
// voting opens; a citizen registered after that is not among them and may
// not vote (403), so the ballots never outnumber total_eligible.
func TestLatecomersDoNotVote(t *testing.T) {
	w := newWorld(t, 1000)
	cs := w.citizens(t, 2)
	p := w.propose(t, cs[0], "standard")
	id := p["proposal_id"].(string)
	w.at(ts(t, p["discussion_ends_at"]))
	w.check(t)
	w.at(ts(t, p["discussion_ends_at"]).Add(time.Hour))
	late := w.citizens(t, 1)[0]
	w.vote(t, late, id, "for").ExpectError(t, 403, "permission_denied")
	w.vote(t, cs[1], id, "for").ExpectStatus(t, 201)
	got := w.proposal(t, id)
	if got["total_eligible"] != float64(2) || got["votes_for"] != float64(1) {
		t.Fatalf("§7 the latecomer's ballot was counted: %v", got)
	}
}
