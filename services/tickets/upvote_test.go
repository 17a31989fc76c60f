package tickets_test

import (
	"net/http"
	"sync"
	"testing"

	"sharedworld.dev/pkg/testkit"
)

func (w *world) upvote(t *testing.T, id string, headers map[string]string) (status int, body map[string]any) {
	t.Helper()
	r := w.do(t, http.MethodPost, "/api/world/tickets/"+id+"/upvote", nil, headers)
	return r.Status, r.Body
}

func TestUpvote(t *testing.T) {
	w := newWorld(t)
	ada, bob, cy := w.citizen("Ada"), w.citizen("Bob"), w.citizen("Cy")
	id := w.file(t, ada, "bug", "upvote me")

	r := w.do(t, http.MethodPost, "/api/world/tickets/"+id+"/upvote", nil, bob.Headers())
	r.ExpectStatus(t, 200)
	if r.Body["upvotes"] != float64(1) || r.Body["ok"] != true {
		t.Fatalf("§5 first upvote: %s", r.Raw)
	}
	w.do(t, http.MethodPost, "/api/world/tickets/"+id+"/upvote", nil, bob.Headers()).ExpectError(t, 409, "conflict")
	w.do(t, http.MethodPost, "/api/world/tickets/"+id+"/upvote", nil, ada.Headers()).ExpectError(t, 403, "permission_denied")
	r = w.do(t, http.MethodPost, "/api/world/tickets/"+id+"/upvote", nil, cy.Headers())
	if r.Body["upvotes"] != float64(2) {
		t.Fatalf("§5 second citizen's upvote: %s", r.Raw)
	}

	got := w.do(t, http.MethodGet, "/api/world/tickets/"+id, nil, nil)
	tk := got.Body["ticket"].(map[string]any)
	if tk["upvotes"] != float64(2) || tk["updated_at"] != tk["created_at"] {
		t.Fatalf("§5 after two upvotes (a repeat and the filer's refused): %s", got.Raw)
	}
	list := w.do(t, http.MethodGet, "/api/world/tickets", nil, nil)
	if list.Body["tickets"].([]any)[0].(map[string]any)["upvotes"] != float64(2) {
		t.Fatalf("§5 the list shows the same count: %s", list.Raw)
	}
}

func TestUpvoteRejections(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	id := w.file(t, ada, "bug", "t")
	bob := w.citizen("Bob")
	stranger := w.kit.NewAgent("Stranger", nil)
	cases := []struct {
		name    string
		path    string
		headers map[string]string
		status  int
		code    string
	}{
		{"§2 no credentials", "/api/world/tickets/" + id + "/upvote", nil, 401, "unauthenticated"},
		{"§3 not a citizen", "/api/world/tickets/" + id + "/upvote", stranger.Headers(), 403, "not_registered"},
		{"§1 unknown ticket", "/api/world/tickets/tkt_00000000/upvote", bob.Headers(), 404, "not_found"},
		{"§1 malformed ticket id", "/api/world/tickets/tkt_XYZ/upvote", bob.Headers(), 404, "not_found"},
		{"§11 wrong method on the upvote path", "/api/world/tickets/" + id + "/upvote", bob.Headers(), 405, "method_not_allowed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			method := http.MethodPost
			if c.status == 405 {
				method = http.MethodGet
			}
			w.do(t, method, c.path, nil, c.headers).ExpectError(t, c.status, c.code)
		})
	}
	if tk := w.do(t, http.MethodGet, "/api/world/tickets/"+id, nil, nil).Body["ticket"].(map[string]any); tk["upvotes"] != float64(0) {
		t.Fatalf("refused upvotes changed the count: %v", tk)
	}
}

func TestUpvotesAreCountedExactlyUnderConcurrency(t *testing.T) {
	w := newWorld(t)
	id := w.file(t, w.citizen("Filer"), "feature", "popular")
	const voters = 12
	var agents []map[string]string
	for range voters {
		agents = append(agents, w.citizen("V").Headers())
	}
	repeat := w.citizen("Repeat").Headers()

	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	record := func(s int) { mu.Lock(); statuses[s]++; mu.Unlock() }
	for _, h := range agents {
		wg.Add(1)
		go func() { defer wg.Done(); s, _ := w.upvote(t, id, h); record(s) }()
	}
	// One citizen upvoting six times at once: exactly one counts.
	for range 6 {
		wg.Add(1)
		go func() { defer wg.Done(); s, _ := w.upvote(t, id, repeat); record(s) }()
	}
	wg.Wait()
	if statuses[200] != voters+1 || statuses[409] != 5 {
		t.Fatalf("§5 statuses %v, want %d×200 and 5×409", statuses, voters+1)
	}
	tk := w.do(t, http.MethodGet, "/api/world/tickets/"+id, nil, nil).Body["ticket"].(map[string]any)
	if tk["upvotes"] != float64(voters+1) {
		t.Fatalf("§5 upvotes = %v, want %d: no increment lost", tk["upvotes"], voters+1)
	}
}

// Two replicas on database handles of their own (their own locks, as two
// processes have) take upvotes at once: ten citizens' upvotes all count,
// and one citizen upvoting six times over both counts once.
func TestUpvotesAcrossTwoReplicas(t *testing.T) {
	w := newWorld(t)
	apps := w.replicaApps(t, 2)
	id := w.file(t, w.citizen("Filer"), "feature", "shared")
	const voters = 10
	var headers []map[string]string
	for range voters {
		headers = append(headers, w.citizen("V").Headers())
	}
	repeat := w.citizen("Repeat").Headers()
	for range 6 {
		headers = append(headers, repeat)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	for i, h := range headers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := testkit.Do(t, apps[i%2], testkit.Request{Method: http.MethodPost, Path: "/api/world/tickets/" + id + "/upvote", Headers: h})
			mu.Lock()
			statuses[r.Status]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if statuses[200] != voters+1 || statuses[409] != 5 {
		t.Fatalf("§5 statuses over two replicas %v, want %d×200 and 5×409", statuses, voters+1)
	}
	for _, app := range apps {
		r := testkit.Do(t, app, testkit.Request{Method: http.MethodGet, Path: "/api/world/tickets/" + id})
		if r.Body["ticket"].(map[string]any)["upvotes"] != float64(voters+1) {
			t.Fatalf("§5 %d upvotes accepted; a replica reads %s", voters+1, r.Raw)
		}
	}
}
