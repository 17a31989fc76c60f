package messaging_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/messaging"
)

// replicaApps starts n more messaging replicas, each on a database handle
// of its own (its own locks, as another process has; testkit.ReplicaDB).
func (w *world) replicaApps(t *testing.T, n int) []*fiber.App {
	t.Helper()
	return w.kit.ReplicaApps(w.clock, n, func(ctx context.Context, deps platform.Deps) (platform.Service, error) {
		return messaging.New(ctx, deps, messaging.Options{SealParams: cheapSeal})
	})
}

// readAnswer is what one mark-read said.
type readAnswer struct {
	status  int
	already bool
	readAt  string
}

// markAll sends every path's mark-read, each twice, at once, alternating
// over apps, and returns the answers by path.
func markAll(t *testing.T, apps []*fiber.App, a testkit.Agent, paths []string) map[string][]readAnswer {
	var mu sync.Mutex
	answers := map[string][]readAnswer{}
	var wg sync.WaitGroup
	for i := range 2 * len(paths) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := paths[i%len(paths)]
			r := testkit.Do(t, apps[i%len(apps)], testkit.Request{Method: http.MethodPost, Path: p, Headers: a.Headers()})
			mu.Lock()
			answers[p] = append(answers[p], readAnswer{r.Status, r.Body["already_read"] == true, fmt.Sprint(r.Body["read_at"])})
			mu.Unlock()
		}()
	}
	wg.Wait()
	return answers
}

// checkOneFirstRead: every mark answered 200 with one read_at, and exactly
// one of them was the first read.
func checkOneFirstRead(t *testing.T, answers map[string][]readAnswer) {
	t.Helper()
	for p, as := range answers {
		firsts := 0
		for _, a := range as {
			if a.status != 200 || a.readAt != as[0].readAt {
				t.Fatalf("§8 %s over two replicas: %+v", p, as)
			}
			if !a.already {
				firsts++
			}
		}
		if firsts != 1 {
			t.Fatalf("§8 %s: %d answers claim the first read, want 1: %+v", p, firsts, as)
		}
	}
}

// §8's mark-read holds across replicas: a message read 20 times at once
// over two replicas is read once, and six announcements' notifications
// (marks in one citizen's read state, one document) and the message's,
// each marked twice at once over two replicas, are each read once and
// all stay read: no replica's write drops another's.
func TestMarkReadAcrossReplicas(t *testing.T) {
	w := newWorld(t)
	apps := w.replicaApps(t, 2)
	alice, bob := w.citizen("alice"), w.citizen("bob")

	id := str(w.do(&alice, "POST", "/api/world/message", send(bob.ID, "k")).Body["message_id"])
	var paths []string
	for range 10 {
		paths = append(paths, "/api/world/message/"+id+"/read")
	}
	checkOneFirstRead(t, markAll(t, apps, bob, paths)) // 20 reads of one message

	const posts = 6
	for i := range posts {
		w.announce(fmt.Sprintf("post_%08x", 0xa0+i), fmt.Sprintf("News %d", i), time.Now().UTC())
	}
	var ns []map[string]any
	// read on a replica: the first service may keep an in-memory copy of
	// what it wrote itself (an exclusive database), which replicas' writes
	// bypass
	testkit.Eventually(t, 30*time.Second, "the announcements reach bob", func() bool {
		r := testkit.Do(t, apps[0], testkit.Request{Method: http.MethodGet, Path: "/api/world/notifications?unread=true", Headers: bob.Headers()})
		ns = items(r.Body["notifications"])
		announced := 0
		for _, n := range ns {
			if n["kind"] == "announcement" {
				announced++
			}
		}
		return announced == posts
	})
	paths = paths[:0]
	for _, n := range ns {
		paths = append(paths, "/api/world/notifications/"+str(n["notification_id"])+"/read")
	}
	checkOneFirstRead(t, markAll(t, apps, bob, paths))
	for i, app := range apps {
		r := testkit.Do(t, app, testkit.Request{Method: http.MethodGet, Path: "/api/world/notifications", Headers: bob.Headers()})
		if r.Body["unread_count"] != float64(0) {
			t.Fatalf("§8 replica %d: bob has %v unread after marking every one read", i, r.Body["unread_count"])
		}
	}
}

// §8's commons spacing and the ambassador's inbox cap hold across
// replicas: ten posts of one citizen at once over two replicas store one
// (the rest are inside the 10 s spacing), and six inbox messages at once
// store one (one a day): each takes its slot by an insert under a unique
// key, so the loser of a race decides again on the winner's post.
func TestCommonsSpacingAndInboxCapAcrossReplicas(t *testing.T) {
	w := newWorld(t)
	apps := w.replicaApps(t, 2)
	alice := w.citizen("alice")
	race := func(n int, path string, body map[string]any) map[int]int {
		var mu sync.Mutex
		statuses := map[int]int{}
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := testkit.Do(t, apps[i%2], testkit.Request{Method: http.MethodPost, Path: path, Body: body, Headers: alice.Headers()})
				mu.Lock()
				statuses[r.Status]++
				mu.Unlock()
			}()
		}
		wg.Wait()
		return statuses
	}
	if s := race(10, "/api/world/commons/general", post("at once")); s[201] != 1 || s[429] != 9 {
		t.Fatalf("§8 ten commons posts over two replicas: %v, want one 201 and nine 429", s)
	}
	if s := race(6, "/api/world/inbox", inbox("security")); s[201] != 1 || s[429] != 5 {
		t.Fatalf("§8 six inbox messages over two replicas: %v, want one 201 and five 429", s)
	}
}
