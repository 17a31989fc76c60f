package plotsstorage_test

import (
	"bytes"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"sharedworld.dev/pkg/testkit"
)

const mib = 1 << 20

// concurrently runs f(i) for i in [0, n) at once and returns the statuses.
func concurrently(n int, f func(i int) int) []int {
	statuses := make([]int, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			statuses[i] = f(i)
		}()
	}
	close(start)
	wg.Wait()
	return statuses
}

func count(statuses []int, status int) int {
	n := 0
	for _, s := range statuses {
		if s == status {
			n++
		}
	}
	return n
}

func listedBytes(t *testing.T, w *world, a testkit.Agent, id string) (int, int) {
	t.Helper()
	r := w.do(t, http.MethodGet, "/api/world/storage/list?plot_id="+id, nil, a.Headers())
	total := 0
	for _, f := range r.Body["files"].([]any) {
		total += num(f.(map[string]any)["size_bytes"])
	}
	return total, num(r.Body["total"])
}

// TestQuotaBytesUnderConcurrency: §4 "plot quota 10 MiB ... enforced under concurrency".
func TestQuotaBytesUnderConcurrency(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	id := w.claim(t, ada, 3, 1)
	for i := range 9 {
		w.write(t, ada, id, fmt.Sprintf("/fill/%d", i), bytes.Repeat([]byte{'f'}, mib)).ExpectStatus(t, 201)
	}
	// 1 MiB is left; eight writers race for it with 512 KiB each.
	half := bytes.Repeat([]byte{'h'}, mib/2)
	statuses := concurrently(8, func(i int) int {
		r := w.write(t, ada, id, fmt.Sprintf("/race/%d", i), half)
		if r.Status != 201 && r.Body["error"] != "payload_too_large" {
			t.Errorf("§4 racing write answered %d %s", r.Status, r.Raw)
		}
		return r.Status
	})
	if count(statuses, 201) != 2 || count(statuses, 413) != 6 {
		t.Fatalf("§4 quota race: statuses %v, want exactly two 201 and six 413", statuses)
	}
	if used, _ := listedBytes(t, w, ada, id); used != 10*mib {
		t.Fatalf("§4 stored %d bytes, want exactly 10 MiB", used)
	}
	w.write(t, ada, id, "/one-more", []byte{1}).ExpectError(t, 413, "payload_too_large")
	// Overwriting with something no larger still works on a full plot.
	w.write(t, ada, id, "/fill/0", bytes.Repeat([]byte{'g'}, mib)).ExpectStatus(t, 201)
	// A delete gives the space back, exactly.
	winner := -1
	for i, s := range statuses {
		if s == 201 {
			winner = i
		}
	}
	w.do(t, http.MethodPost, "/api/world/storage/delete", map[string]any{"plot_id": id, "path": fmt.Sprintf("/race/%d", winner)}, ada.Headers()).ExpectStatus(t, 200)
	w.write(t, ada, id, "/after-delete", half).ExpectStatus(t, 201)
	w.write(t, ada, id, "/one-more", []byte{1}).ExpectError(t, 413, "payload_too_large")
}

// TestConcurrentOverwritesKeepUsageExact: racing writers of one path leave
// the usage counter equal to what is stored, so the quota stays exact.
func TestConcurrentOverwritesKeepUsageExact(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	id := w.claim(t, ada, 3, 2)
	statuses := concurrently(10, func(i int) int {
		return w.write(t, ada, id, "/same.bin", bytes.Repeat([]byte{byte(i)}, (i+1)*100*1024)).Status
	})
	if count(statuses, 201)+count(statuses, 409) != 10 || count(statuses, 201) == 0 {
		t.Fatalf("§4 racing overwrites answered %v", statuses)
	}
	used, files := listedBytes(t, w, ada, id)
	if files != 1 {
		t.Fatalf("§4 one path is one file, listed %d", files)
	}
	// Fill to exactly the quota: it only fits if the counter equals what is stored.
	w.write(t, ada, id, "/rest-a", bytes.Repeat([]byte{'r'}, min(mib, 10*mib-used))).ExpectStatus(t, 201)
	for left := 10*mib - used - min(mib, 10*mib-used); left > 0; left -= min(mib, left) {
		w.write(t, ada, id, fmt.Sprintf("/rest-%d", left), bytes.Repeat([]byte{'r'}, min(mib, left))).ExpectStatus(t, 201)
	}
	if used, _ := listedBytes(t, w, ada, id); used != 10*mib {
		t.Fatalf("§4 stored %d bytes after filling, want 10 MiB", used)
	}
	w.write(t, ada, id, "/over", []byte{1}).ExpectError(t, 413, "payload_too_large")
}

// TestQuotaFilesUnderConcurrency: §4 "1000 files", with a race at the boundary.
func TestQuotaFilesUnderConcurrency(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a thousand files")
	}
	w := newWorld(t)
	ada := w.citizen("Ada")
	id := w.claim(t, ada, 3, 3)
	const workers = 4
	var wg sync.WaitGroup
	for wk := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := wk; i < 995; i += workers {
				if r := w.write(t, ada, id, fmt.Sprintf("/f/%04d", i), nil); r.Status != 201 {
					t.Errorf("file %d: %d %s", i, r.Status, r.Raw)
					return
				}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	statuses := concurrently(10, func(i int) int { return w.write(t, ada, id, fmt.Sprintf("/race/%d", i), []byte("x")).Status })
	if count(statuses, 201) != 5 || count(statuses, 413) != 5 {
		t.Fatalf("§4 file-count race: %v, want five 201 and five 413", statuses)
	}
	if _, files := listedBytes(t, w, ada, id); files != 1000 {
		t.Fatalf("§4 listed %d files, want 1000", files)
	}
	w.write(t, ada, id, "/f/0000", []byte("overwrite")).ExpectStatus(t, 201)
}
