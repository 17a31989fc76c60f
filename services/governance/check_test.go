package governance_test

import (
	"bytes"
	"context"
	"net/http"
	"sort"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"

	"sharedworld.dev/services/governance/internal/ballot"
)

// No check for 30 days of world time, then one check applies every
// transition in deadline order, each with its own deadline.
func TestCatchUpAfterThirtyDays(t *testing.T) {
	w := newWorld(t, 10)
	cs := w.citizens(t, 10)
	w.check(t) // opens the first five elections at start
	w.elect(t, cs[0], map[string]any{"role": "archive", "action": "nominate"}).ExpectStatus(t, 200)
	ids := map[string]string{}
	for _, typ := range []string{"standard", "major", "emergency"} {
		ids[typ] = w.propose(t, cs[1], typ)["proposal_id"].(string)
	}
	w.vote(t, cs[2], ids["emergency"], "for").ExpectStatus(t, 201)
	w.at(start.Add(48 * time.Hour)) // the archive election opens its ballot
	w.check(t)
	w.elect(t, cs[3], map[string]any{"role": "archive", "action": "vote", "candidate_agent_id": cs[0].ID}).ExpectStatus(t, 200)
	w.elect(t, cs[4], map[string]any{"role": "archive", "action": "vote", "candidate_agent_id": cs[0].ID}).ExpectStatus(t, 200)
	w.at(start.Add(48*time.Hour + 30*24*time.Hour))
	got := w.check(t)
	var prev time.Time
	for i, tr := range got {
		at := ts(t, tr["at"])
		if at.Before(prev) {
			t.Fatalf("§7 transition %d (%v) is before the one applied earlier", i, tr)
		}
		prev = at
	}
	decided := map[string]time.Time{
		ids["standard"]:  start.Add(120 * time.Hour),
		ids["major"]:     start.Add(192 * time.Hour),
		ids["emergency"]: start.Add(4 * time.Hour),
	}
	for id, want := range decided {
		p := w.proposal(t, id)
		if p["status"] == "voting" || p["status"] == "discussion" || !ts(t, p["decided_at"]).Equal(want) {
			t.Fatalf("§7 %s after catch-up: %v (want decided at %v)", id, p, want)
		}
	}
	if w.proposal(t, ids["emergency"])["status"] != "passed" {
		t.Fatal("§7 the emergency proposal with 1 of 10 for should pass")
	}
	// The archive steward was elected when its election closed at 120 h
	// and still serves; the four vacant offices got a new election each
	// time one closed without a winner, every 120 h, at the close.
	if s := w.stewardsMust(t)["archive"]; s == nil || !ts(t, s["term_start"]).Equal(start.Add(120*time.Hour)) {
		t.Fatalf("§7 archive steward after catch-up: %v", s)
	}
	r := w.do(t, http.MethodGet, "/api/world/elections?role=peace", nil, nil)
	es := r.Body["elections"].([]any)
	if len(es) != 7 {
		t.Fatalf("§7 peace elections over 32 days: %d, want 7 (every 120 h)", len(es))
	}
	for i, e := range es { // newest first
		want := start.Add(time.Duration(6-i) * 120 * time.Hour)
		if got := ts(t, e.(map[string]any)["opened_at"]); !got.Equal(want) {
			t.Fatalf("§7 peace election %d opened at %v, want %v", i, got, want)
		}
	}
	if again := w.check(t); len(again) != 0 {
		t.Fatalf("§7 a second check repeats transitions: %v", again)
	}
}

// Two checks started at once apply each transition exactly once; the
// loser of the lease says so.
func TestConcurrentChecks(t *testing.T) {
	w := newWorld(t, 1000)
	cs := w.citizens(t, 2)
	for i := 0; i < 3; i++ {
		w.propose(t, cs[0], "standard")
		w.propose(t, cs[1], "major")
	}
	w.at(start.Add(400 * time.Hour))
	var wg sync.WaitGroup
	var mu sync.Mutex
	var all []string
	statuses := map[int]int{}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := w.do(t, http.MethodPost, "/api/admin/governance/check", nil, ambassador())
			mu.Lock()
			defer mu.Unlock()
			statuses[r.Status]++
			if r.Status == 200 {
				for _, x := range r.Body["transitions"].([]any) {
					m := x.(map[string]any)
					all = append(all, m["id"].(string)+":"+m["to"].(string))
				}
			} else {
				r.ExpectError(t, 409, "conflict")
			}
		}()
	}
	wg.Wait()
	sort.Strings(all)
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			t.Fatalf("§7 transition %s applied twice", all[i])
		}
	}
	if len(all) != 12 || statuses[200] == 0 {
		t.Fatalf("§7 6 proposals × 2 transitions = 12 once each, got %d (%v)", len(all), statuses)
	}
}

// After ballots, no collection of the governance database holds a
// ballot's choice in plaintext, and a wrong key cannot open a ballot.
func TestBallotsStoredSealed(t *testing.T) {
	w := newWorld(t, 1000)
	cs := w.citizens(t, 4)
	id := w.propose(t, cs[0], "emergency")["proposal_id"].(string)
	for i, c := range []string{"for", "against", "abstain"} {
		w.vote(t, cs[i+1], id, c).ExpectStatus(t, 201)
	}
	ctx := context.Background()
	names, err := w.kit.DB.Database.ListCollectionNames(ctx, bson.M{})
	if err != nil {
		t.Fatal(err)
	}
	var sealed [][]byte
	var voters []string
	for _, name := range names {
		cur, err := w.kit.DB.Collection(name).Find(ctx, bson.M{})
		if err != nil {
			t.Fatal(err)
		}
		var docs []bson.M
		if err := cur.All(ctx, &docs); err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			walk(d, func(key string, v any) {
				switch x := v.(type) {
				case string:
					if x == "for" || x == "against" || x == "abstain" {
						t.Fatalf("§7 %s holds the choice %q in plaintext (field %s)", name, x, key)
					}
				case primitive.Binary:
					if bytes.Contains(x.Data, []byte("against")) || bytes.Contains(x.Data, []byte("abstain")) {
						t.Fatalf("§7 %s holds a choice inside binary field %s", name, key)
					}
					if key == "sealed" {
						sealed = append(sealed, x.Data)
					}
				}
				if key == "voter" {
					voters = append(voters, v.(string))
				}
			})
		}
	}
	if len(sealed) != 3 {
		t.Fatalf("found %d sealed ballots, want 3", len(sealed))
	}
	right, _ := ballot.NewBox(w.key)
	wrong, _ := ballot.NewBox(ballot.NewKey())
	voteIDs := w.voteIDs(t, id)
	for i, s := range sealed {
		if _, err := wrong.Open(s, id, voters[i], voteIDs[i]); err == nil {
			t.Fatal("§7 a wrong key opened a stored ballot")
		}
		if c, err := right.Open(s, id, voters[i], voteIDs[i]); err != nil || c == "" {
			t.Fatalf("the service's key cannot open its own ballot: %v", err)
		}
	}
}

func (w *world) voteIDs(t *testing.T, id string) []string {
	var d struct {
		Ballots []struct {
			VoteID string `bson:"vote_id"`
		} `bson:"ballots"`
	}
	if err := w.kit.DB.Collection("proposals").FindOne(context.Background(), bson.M{"_id": id}).Decode(&d); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, b := range d.Ballots {
		out = append(out, b.VoteID)
	}
	return out
}

func walk(v any, fn func(key string, v any)) {
	var rec func(key string, v any)
	rec = func(key string, v any) {
		fn(key, v)
		switch x := v.(type) {
		case bson.M:
			for k, y := range x {
				rec(k, y)
			}
		case bson.D:
			for _, e := range x {
				rec(e.Key, e.Value)
			}
		case bson.A:
			for _, y := range x {
				rec(key, y)
			}
		}
	}
	rec("", v)
}
