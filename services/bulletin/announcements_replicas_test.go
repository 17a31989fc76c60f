package bulletin_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/bulletin"
	"sharedworld.dev/services/bulletin/internal/app"
	"sharedworld.dev/services/bulletin/internal/domain"
	"sharedworld.dev/services/bulletin/internal/store"
)

// One pinned announcement at a time, across replicas (CONTRACT §6: pinning
// unpins the previous): two readers take posts and pins at once, eight
// clients each, and after every round exactly one stored announcement is
// pinned. Without the shared pin lock each replica's move would read the
// same pinned one and both would pin theirs.
func TestOnePinnedAnnouncementAcrossReplicas(t *testing.T) {
	kit := testkit.New(t)
	readers := []*replica{startReplica(t, kit, bulletin.RoleReader, "reader-1"), startReplica(t, kit, bulletin.RoleReader, "reader-2")}
	const clients = 8
	var ids []string
	var mu sync.Mutex
	for round := range 6 {
		var wg sync.WaitGroup
		for c := range 2 * clients {
			r := readers[c%2]
			wg.Add(1)
			go func() {
				defer wg.Done()
				mu.Lock()
				pinning := round > 0 && c%2 == 1
				var target string
				if pinning {
					target = ids[(c*7+round)%len(ids)]
				}
				mu.Unlock()
				if pinning {
					resp := testkit.Do(t, r.app, testkit.Request{Method: http.MethodPost, Path: "/api/admin/announcements/" + target + "/pin", Headers: ambassador})
					resp.ExpectStatus(t, http.StatusOK)
					return
				}
				resp := testkit.Do(t, r.app, testkit.Request{Method: http.MethodPost, Path: "/api/admin/announcements",
					Body: map[string]any{"title": fmt.Sprintf("Round %d, client %d", round, c), "content": "x"}, Headers: ambassador})
				resp.ExpectStatus(t, http.StatusCreated)
				mu.Lock()
				ids = append(ids, resp.Body["announcement"].(map[string]any)["post_id"].(string))
				mu.Unlock()
			}()
		}
		wg.Wait()
		n, err := kit.DB.Collection("announcements").CountDocuments(kit.Ctx(), bson.M{"pinned": true})
		if err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Fatalf("round %d: %d announcements pinned at once, want 1", round, n)
		}
	}
}

// An unpinned post moves no pin, so it does not wait for the pin lock:
// with the lock held by another replica (taken as of an hour ahead, so
// it stays held however slow the machine), a reader still posts unpinned
// announcements, while a pinned post waits for the lock until its
// request's deadline.
func TestUnpinnedPostsDoNotWaitForThePinLock(t *testing.T) {
	kit := testkit.New(t)
	r := startReplica(t, kit, bulletin.RoleReader, "reader-1")
	held, err := store.NewLeases(kit.ReplicaDB(), "pin-moves").Take(kit.Ctx(), "a stuck replica", time.Now().Add(time.Hour))
	if err != nil || held.Holder != "a stuck replica" {
		t.Fatal(err)
	}
	for i := range 3 {
		resp := testkit.Do(t, r.app, testkit.Request{Method: http.MethodPost, Path: "/api/admin/announcements",
			Body: map[string]any{"title": fmt.Sprintf("unpinned %d", i), "content": "x", "pinned": false}, Headers: ambassador})
		resp.ExpectStatus(t, http.StatusCreated)
	}
	ctx, cancel := context.WithTimeout(kit.Ctx(), 200*time.Millisecond)
	defer cancel()
	_, err = app.NewAnnouncements(store.NewAnnouncements(kit.ReplicaDB(), nil), &app.MoveLock{Store: store.NewLeases(kit.ReplicaDB(), "pin-moves")}, clock.System{}).
		Post(ctx, domain.AnnouncementDraft{Title: "pinned", Content: "x"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a pinned post while another holds the pin lock: %v, want it to wait until its deadline", err)
	}
}
