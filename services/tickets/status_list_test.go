package tickets_test

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"
)

// TestStatusListsUnderConcurrentTriage: while several ambassador requests
// acknowledge tickets at once, every status-filtered list holds only
// tickets in that status, and right after a 200 the acknowledged ticket is
// out of ?status=open, in ?status=acknowledged and counted as such.
func TestStatusListsUnderConcurrentTriage(t *testing.T) {
	w := newWorld(t)
	var ids []string
	for c := range 6 {
		a := w.citizen(fmt.Sprint("Filer", c))
		for i := range 5 {
			ids = append(ids, w.file(t, a, "bug", fmt.Sprintf("filer %d ticket %d", c, i)))
		}
	}
	total := len(ids)

	var mu sync.Mutex
	acked := map[string]bool{} // acknowledged with a 200 already
	ackedNow := func() map[string]bool {
		mu.Lock()
		defer mu.Unlock()
		out := make(map[string]bool, len(acked))
		for id := range acked {
			out[id] = true
		}
		return out
	}
	// check lists status and reports what is wrong with the page: a ticket
	// of another status, an acknowledged one still listed as open, one
	// missing from its status, or counts that do not count what was acked.
	check := func(status string) {
		before := ackedNow()
		r := w.do(t, http.MethodGet, "/api/world/tickets?limit=100&status="+status, nil, nil)
		if r.Status != 200 {
			t.Errorf("list %s: %d %s", status, r.Status, r.Raw)
			return
		}
		listed := map[string]bool{}
		for _, tk := range r.Body["tickets"].([]any) {
			m := tk.(map[string]any)
			id := m["ticket_id"].(string)
			listed[id] = true
			if m["status"] != status {
				t.Errorf("§5 ?status=%s listed %s with status %v", status, id, m["status"])
			}
			if status == "open" && before[id] {
				t.Errorf("§5 ?status=open listed %s after its acknowledgement was answered", id)
			}
		}
		counts := r.Body["counts"].(map[string]any)
		if status == "acknowledged" {
			for id := range before {
				if !listed[id] {
					t.Errorf("§5 ?status=acknowledged misses %s after its acknowledgement was answered", id)
				}
			}
		}
		if n := count(counts["acknowledged"]); n < len(before) {
			t.Errorf("§5 counts.acknowledged %d with %d acknowledgements answered", n, len(before))
		}
		if n := count(counts["open"]); n > total-len(before) {
			t.Errorf("§5 counts.open %d with %d of %d tickets acknowledged", n, len(before), total)
		}
	}

	work := make(chan string)
	var wg sync.WaitGroup
	for range 4 { // four ambassador requests at once, each listing after its 200
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range work {
				if r := w.triage(t, id, map[string]any{"status": "acknowledged"}); r.Status != 200 {
					t.Errorf("triage %s: %d %s", id, r.Status, r.Raw)
					continue
				}
				mu.Lock()
				acked[id] = true
				mu.Unlock()
				check("open")
				check("acknowledged")
			}
		}()
	}
	for _, id := range ids {
		work <- id
	}
	close(work)
	wg.Wait()

	r := w.do(t, http.MethodGet, "/api/world/tickets?limit=100&status=open", nil, nil)
	counts := r.Body["counts"].(map[string]any)
	if n := len(r.Body["tickets"].([]any)); n != 0 || counts["open"] != "0" || counts["acknowledged"] != fmt.Sprint(total) {
		t.Fatalf("§5 after every acknowledgement: %d open listed, counts %v", n, counts)
	}
}

// count reads a count, which the contract sends as a string.
func count(v any) int {
	s, _ := v.(string)
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}
