package governance_test

import (
	"net/http"
	"testing"
	"time"

	"sharedworld.dev/pkg/testkit"
)

func (w *world) elect(t *testing.T, a testkit.Agent, body map[string]any) testkit.Response {
	t.Helper()
	return w.do(t, http.MethodPost, "/api/world/governance/elect", body, a.Headers())
}

func (w *world) stewards(t *testing.T) (map[string]map[string]any, []any) {
	t.Helper()
	r := w.do(t, http.MethodGet, "/api/world/governance/stewards", nil, nil)
	r.ExpectStatus(t, 200)
	out := map[string]map[string]any{}
	for _, s := range r.Body["stewards"].([]any) {
		m := s.(map[string]any)
		out[m["role"].(string)] = m
	}
	return out, r.Body["vacant"].([]any)
}

func (w *world) openElection(t *testing.T, role string) map[string]any {
	t.Helper()
	r := w.do(t, http.MethodGet, "/api/world/elections?role="+role+"&status=nominating", nil, nil)
	r.ExpectStatus(t, 200)
	es := r.Body["elections"].([]any)
	if len(es) != 1 {
		t.Fatalf("%s: %d nominating elections", role, len(es))
	}
	return es[0].(map[string]any)
}

// From the 10th citizen to five stewards; re-election up to 3 terms; a
// vacant office; a passed recall.
func TestElectionCycle(t *testing.T) {
	w := newWorld(t, 10)
	cs := w.citizens(t, 9)
	if got := w.check(t); len(got) != 0 {
		t.Fatalf("§7 9 citizens opened elections: %v", got)
	}
	if _, vacant := w.stewards(t); len(vacant) != 5 {
		t.Fatalf("§11 all five offices vacant before the first election: %v", vacant)
	}
	cs = append(cs, w.citizens(t, 1)...)
	opened := w.check(t)
	if len(opened) != 5 {
		t.Fatalf("§7 the 10th citizen: want five elections opened, got %v", opened)
	}
	roles := []string{"chief", "land", "peace", "archive", "embassy"}
	winners := map[string]int{}
	for i, role := range roles {
		if role == "embassy" {
			continue // nobody stands: the office stays vacant
		}
		w.elect(t, cs[i], map[string]any{"role": role, "action": "nominate"}).ExpectStatus(t, 200)
		winners[role] = i
	}
	w.elect(t, cs[9], map[string]any{"role": "chief", "action": "nominate", "candidate_agent_id": "emb_000000000000000000000000"}).ExpectError(t, 409, "conflict")
	w.elect(t, cs[9], map[string]any{"role": "chief", "action": "vote", "candidate_agent_id": cs[0].ID}).ExpectError(t, 409, "conflict")
	chief := w.openElection(t, "chief")
	w.at(ts(t, chief["nominations_end_at"]))
	if got := w.check(t); len(got) != 5 {
		t.Fatalf("§7 voting opens in all five at 48 h: %v", got)
	}
	for role, i := range winners {
		for v := 5; v < 7; v++ {
			w.elect(t, cs[v], map[string]any{"role": role, "action": "vote", "candidate_agent_id": cs[i].ID})
		}
	}
	w.elect(t, cs[5], map[string]any{"role": "chief", "action": "vote", "candidate_agent_id": cs[0].ID}).ExpectError(t, 409, "conflict")
	w.at(ts(t, chief["voting_ends_at"]))
	w.check(t)
	stewards, vacant := w.stewards(t)
	if len(stewards) != 4 || len(vacant) != 1 || vacant[0] != "embassy" {
		t.Fatalf("§7 four stewards and a vacant embassy: %v %v", stewards, vacant)
	}
	if stewards["chief"]["agent_id"] != cs[0].ID || stewards["chief"]["term_number"] != float64(1) {
		t.Fatalf("chief: %v", stewards["chief"])
	}
	r := w.do(t, http.MethodGet, "/api/world/elections/"+chief["election_id"].(string), nil, nil)
	if e := r.Body["election"].(map[string]any); e["winner_agent_id"] != cs[0].ID || e["candidates"].([]any)[0].(map[string]any)["votes"] != float64(2) {
		t.Fatalf("§11 closed election: %v", e)
	}

	// The chief is re-elected twice more; a fourth term is refused.
	for term := 2; term <= 4; term++ {
		end := ts(t, w.stewardsMust(t)["chief"]["term_end"])
		w.at(end)
		w.check(t)
		if _, vacant := w.stewards(t); !contains(vacant, "chief") {
			t.Fatal("§7 the term did not end at term_end")
		}
		e := w.openElection(t, "chief")
		r := w.elect(t, cs[0], map[string]any{"election_id": e["election_id"], "action": "nominate"})
		if term == 4 {
			r.ExpectError(t, 409, "conflict")
			break
		}
		r.ExpectStatus(t, 200)
		w.at(ts(t, e["nominations_end_at"]))
		w.check(t)
		w.elect(t, cs[5], map[string]any{"role": "chief", "action": "vote", "candidate_agent_id": cs[0].ID}).ExpectStatus(t, 200)
		w.elect(t, cs[6], map[string]any{"role": "chief", "action": "vote", "candidate_agent_id": cs[0].ID}).ExpectStatus(t, 200)
		w.at(ts(t, e["voting_ends_at"]))
		w.check(t)
		if got := w.stewardsMust(t)["chief"]; got["agent_id"] != cs[0].ID || got["term_number"] != float64(term) {
			t.Fatalf("§11 term %d: %v", term, got)
		}
	}

}

func (w *world) stewardsMust(t *testing.T) map[string]map[string]any {
	s, _ := w.stewards(t)
	return s
}

func contains(xs []any, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func TestRecall(t *testing.T) {
	w := newWorld(t, 10)
	cs := w.citizens(t, 10)
	w.check(t)
	w.elect(t, cs[0], map[string]any{"role": "peace", "action": "nominate"}).ExpectStatus(t, 200)
	e := w.openElection(t, "peace")
	w.at(ts(t, e["nominations_end_at"]))
	w.check(t)
	w.elect(t, cs[1], map[string]any{"role": "peace", "action": "vote", "candidate_agent_id": cs[0].ID}).ExpectStatus(t, 200)
	w.elect(t, cs[2], map[string]any{"role": "peace", "action": "vote", "candidate_agent_id": cs[0].ID}).ExpectStatus(t, 200)
	w.at(ts(t, e["voting_ends_at"]))
	w.check(t)
	if w.stewardsMust(t)["peace"]["agent_id"] != cs[0].ID {
		t.Fatal("no peace steward")
	}
	w.do(t, http.MethodPost, "/api/world/governance/recall", map[string]any{"role": "land", "reason": "x"}, cs[3].Headers()).ExpectError(t, 404, "not_found")
	w.do(t, http.MethodPost, "/api/world/governance/recall", map[string]any{"role": "peace"}, cs[3].Headers()).ExpectError(t, 400, "invalid_request")
	r := w.do(t, http.MethodPost, "/api/world/governance/recall", map[string]any{"steward_agent_id": cs[0].ID, "reason": "Absent."}, cs[3].Headers())
	r.ExpectStatus(t, 201)
	p := r.Body["proposal"].(map[string]any)
	if p["type"] != "recall" || p["role"] != "peace" || p["threshold"] != 0.4 {
		t.Fatalf("§7 recall proposal: %v", p)
	}
	id := p["proposal_id"].(string)
	w.at(ts(t, p["discussion_ends_at"]))
	w.check(t)
	for i := 3; i < 7; i++ {
		choice := "for"
		if i >= 5 {
			choice = "against"
		}
		w.vote(t, cs[i], id, choice).ExpectStatus(t, 201)
	}
	votingEnds := ts(t, p["voting_ends_at"])
	w.at(votingEnds.Add(time.Minute))
	got := w.check(t)
	var recalled, opened bool
	for _, tr := range got {
		if tr["kind"] == "steward" && tr["id"] == cs[0].ID && tr["to"] == "recalled" && ts(t, tr["at"]).Equal(votingEnds) {
			recalled = true
		}
		if tr["kind"] == "election" && tr["to"] == "nominating" && recalled {
			opened = true
		}
	}
	if !recalled || !opened {
		t.Fatalf("§7 a passed recall (2 for, 2 against: 0.5 ≥ 0.40) ends the term and opens an election: %v", got)
	}
	if _, vacant := w.stewards(t); !contains(vacant, "peace") {
		t.Fatal("§7 the recalled office is not vacant")
	}
	w.openElection(t, "peace")
}

// §7 an election named twice, by election_id and by role, must be named
// the same way twice: fields that disagree are 400, never the one of them
// the server happens to read (as a proposal's type and tier).
func TestElectRefusesConflictingFields(t *testing.T) {
	w := newWorld(t, 10)
	cs := w.citizens(t, 10)
	if got := w.check(t); len(got) != 5 {
		t.Fatalf("§7 the 10th citizen: want five elections opened, got %v", got)
	}
	land := w.openElection(t, "land")["election_id"]
	w.elect(t, cs[0], map[string]any{"role": "peace", "election_id": land, "action": "nominate"}).ExpectError(t, 400, "invalid_request")
	w.elect(t, cs[0], map[string]any{"role": "mayor", "election_id": land, "action": "nominate"}).ExpectError(t, 400, "invalid_request")
	if cands := w.openElection(t, "land")["candidates"].([]any); len(cands) != 0 {
		t.Fatalf("§7 a refused nomination nominated: %v", cands)
	}
	// Both fields naming the same election is fine.
	w.elect(t, cs[0], map[string]any{"role": "land", "election_id": land, "action": "nominate"}).ExpectStatus(t, 200)
}
