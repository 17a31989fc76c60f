package messaging_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"sharedworld.dev/pkg/testkit"
)

func send(to, key string) map[string]any {
	return map[string]any{"to_agent_id": to, "subject": "hello", "content": "the garden needs water", "encryption_key": key}
}

func TestSection8SendValidatesBeforeWriting(t *testing.T) {
	w := newWorld(t)
	alice, bob := w.citizen("alice"), w.citizen("bob")
	gone := w.citizen("gone")
	w.kit.Tombstone(gone)
	stranger := w.kit.NewAgent("stranger", nil)

	cases := []struct {
		name   string
		body   any
		status int
		code   string
	}{
		{"missing to_agent_id", map[string]any{"subject": "s", "content": "x", "encryption_key": "k"}, 400, "invalid_request"},
		{"missing subject", map[string]any{"to_agent_id": bob.ID, "content": "x", "encryption_key": "k"}, 400, "invalid_request"},
		{"missing content", map[string]any{"to_agent_id": bob.ID, "subject": "s", "encryption_key": "k"}, 400, "invalid_request"},
		{"missing encryption_key", map[string]any{"to_agent_id": bob.ID, "subject": "s", "content": "x"}, 400, "invalid_request"},
		{"wrong type", map[string]any{"to_agent_id": 7, "subject": "s", "content": "x", "encryption_key": "k"}, 400, "invalid_request"},
		{"subject over 200", map[string]any{"to_agent_id": bob.ID, "subject": strings.Repeat("é", 201), "content": "x", "encryption_key": "k"}, 422, "validation_failed"},
		{"content over 10000", map[string]any{"to_agent_id": bob.ID, "subject": "s", "content": strings.Repeat("a", 10001), "encryption_key": "k"}, 422, "validation_failed"},
		{"unknown recipient", send(stranger.ID, "k"), 404, "not_found"},
		{"tombstoned recipient", send(gone.ID, "k"), 404, "not_found"},
		{"unknown about_agent_ids", map[string]any{"to_agent_id": bob.ID, "subject": "s", "content": "x", "encryption_key": "k", "about_agent_ids": []string{stranger.ID}}, 404, "not_found"},
	}
	testkit.Eventually(t, 5e9, "the tombstone reaches messaging", func() bool {
		return w.do(&gone, "GET", "/api/world/notifications", nil).Status == 403
	})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w.do(&alice, "POST", "/api/world/message", tc.body).ExpectError(t, tc.status, tc.code)
		})
	}
	r := w.do(&alice, "GET", "/api/world/messages?box=sent", nil)
	if r.Body["pagination"].(map[string]any)["total"] != float64(0) {
		t.Fatalf("a refused message was written: %s", r.Raw)
	}
	w.do(nil, "POST", "/api/world/message", send(bob.ID, "k")).ExpectError(t, 401, "unauthenticated")
	w.do(&stranger, "POST", "/api/world/message", send(bob.ID, "k")).ExpectError(t, 403, "not_registered")
}

func TestSection8MessagesSealedListedAndOpened(t *testing.T) {
	w := newWorld(t)
	alice, bob, carol := w.citizen("alice"), w.citizen("bob"), w.citizen("carol")
	var ids []string
	for i := 0; i < 3; i++ {
		body := send(bob.ID, "shared-key")
		if i == 1 { // body is accepted in place of content
			delete(body, "content")
			body["body"] = "the garden needs water"
			body["about_agent_ids"] = []string{carol.ID}
		}
		r := w.do(&alice, "POST", "/api/world/message", body)
		r.ExpectStatus(t, 201)
		id := str(r.Body["message_id"])
		if !strings.HasPrefix(id, "msg_") || len(id) != 12 || r.Body["sent_at"] == nil {
			t.Fatalf("send answer: %s", r.Raw)
		}
		ids = append(ids, id)
		w.clock.Set(w.clock.Now().Add(time.Second))
	}
	// Without a key: listed, sealed, no text.
	r := w.do(&bob, "GET", "/api/world/messages?box=inbox&limit=2", nil)
	r.ExpectStatus(t, 200)
	p := r.Body["pagination"].(map[string]any)
	if p["total"] != float64(3) || p["has_more"] != true || p["count"] != float64(2) || p["limit"] != float64(2) || p["next"] == nil {
		t.Fatalf("pagination: %s", r.Raw)
	}
	first := items(r.Body["messages"])
	if first[0]["message_id"] != ids[2] || first[0]["content"] != nil || first[0]["subject"] != "hello" {
		t.Fatalf("newest first, the subject listed like an envelope's, no content without a key: %s", r.Raw)
	}
	r2 := w.do(&bob, "GET", "/api/world/messages?box=inbox&limit=2&cursor="+str(p["next"]), nil)
	rest := items(r2.Body["messages"])
	if len(rest) != 1 || rest[0]["message_id"] != ids[0] || r2.Body["pagination"].(map[string]any)["has_more"] != false {
		t.Fatalf("second page: %s", r2.Raw)
	}
	// The right key opens every message; a wrong one says so per message.
	open := w.do(&bob, "POST", "/api/world/messages?box=inbox", map[string]any{"encryption_key": "shared-key"})
	for _, m := range items(open.Body["messages"]) {
		if m["content"] != "the garden needs water" || m["subject"] != "hello" || m["decrypted"] != true {
			t.Fatalf("right key: %s", open.Raw)
		}
	}
	wrong := w.do(&bob, "POST", "/api/world/messages?box=inbox", map[string]any{"encryption_key": "guess"})
	wrong.ExpectStatus(t, 200)
	for _, m := range items(wrong.Body["messages"]) {
		if m["decrypted"] != false || m["content"] != nil || m["decrypt_error"] == nil || m["subject"] != "hello" {
			t.Fatalf("wrong key: %s", wrong.Raw)
		}
	}
	sent := w.do(&alice, "POST", "/api/world/messages?box=sent", map[string]any{"encryption_key": "shared-key"})
	if sent.Body["pagination"].(map[string]any)["total"] != float64(3) {
		t.Fatalf("sent box: %s", sent.Raw)
	}
	if w.do(&carol, "GET", "/api/world/messages", nil).Body["pagination"].(map[string]any)["total"] != float64(0) {
		t.Fatal("carol sees messages not addressed to her")
	}
	w.do(&bob, "GET", "/api/world/messages?box=trash", nil).ExpectError(t, 400, "invalid_request")
	w.do(&bob, "GET", "/api/world/messages?cursor=zzz", nil).ExpectError(t, 400, "invalid_request")
	w.do(&bob, "GET", "/api/world/messages?limit=x", nil).ExpectError(t, 400, "invalid_request")
	if w.do(&bob, "GET", "/api/world/messages?limit=1000", nil).Body["pagination"].(map[string]any)["limit"] != float64(100) {
		t.Fatal("limit is not capped at 100")
	}
}

func TestSection8ReadIsIdempotentAndRecipientOnly(t *testing.T) {
	w := newWorld(t)
	alice, bob := w.citizen("alice"), w.citizen("bob")
	id := str(w.do(&alice, "POST", "/api/world/message", send(bob.ID, "k")).Body["message_id"])

	w.do(&alice, "POST", "/api/world/message/"+id+"/read", nil).ExpectError(t, 404, "not_found")
	w.do(&bob, "POST", "/api/world/message/msg_00000000/read", nil).ExpectError(t, 404, "not_found")
	w.do(&bob, "POST", "/api/world/message/nonsense/read", nil).ExpectError(t, 404, "not_found")

	type answer struct {
		already bool
		readAt  string
	}
	answers := make([]answer, 20)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r := w.do(&bob, "POST", "/api/world/message/"+id+"/read", nil)
			if r.Status != 200 {
				t.Errorf("concurrent read %d: %d %s", i, r.Status, r.Raw)
				return
			}
			answers[i] = answer{already: r.Body["already_read"] == true, readAt: str(r.Body["read_at"])}
		}(i)
	}
	wg.Wait()
	firsts := 0
	for _, a := range answers {
		if !a.already {
			firsts++
		}
		if a.readAt != answers[0].readAt {
			t.Fatalf("read_at differs between calls: %v", answers)
		}
	}
	if firsts != 1 {
		t.Fatalf("%d calls claim the first read, want exactly 1", firsts)
	}
	w.clock.Set(w.clock.Now().Add(1e9 * 60))
	again := w.do(&bob, "POST", "/api/world/message/"+id+"/read", nil)
	if again.Body["already_read"] != true || str(again.Body["read_at"]) != answers[0].readAt {
		t.Fatalf("repeat read: %s", again.Raw)
	}
}
