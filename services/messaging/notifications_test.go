package messaging_test

import (
	"testing"
	"time"

	"sharedworld.dev/pkg/testkit"
)

func TestSection8AnnouncementReachesCitizensLivingThen(t *testing.T) {
	w := newWorld(t)
	alice, bob := w.citizen("alice"), w.citizen("bob")
	w.announce("post_0000000a", "Welcome", time.Now().UTC()) // after alice and bob registered
	var ntf map[string]any
	testkit.Eventually(t, 10*time.Second, "the announcement reaches alice", func() bool {
		ns := w.notifications(alice, "?unread=true")
		if len(ns) == 1 {
			ntf = ns[0]
		}
		return len(ns) == 1
	})
	if ntf["kind"] != "announcement" || ntf["post_id"] != "post_0000000a" || ntf["read_at"] != nil || ntf["title"] != "Welcome" {
		t.Fatalf("announcement notification: %v", ntf)
	}
	id := str(ntf["notification_id"])
	r := w.do(&alice, "GET", "/api/world/notifications", nil)
	if r.Body["unread_count"] != float64(1) {
		t.Fatalf("unread count: %s", r.Raw)
	}
	first := w.do(&alice, "POST", "/api/world/notifications/"+id+"/read", nil)
	if first.Status != 200 || first.Body["already_read"] != false || first.Body["read_at"] == nil {
		t.Fatalf("mark read: %s", first.Raw)
	}
	again := w.do(&alice, "POST", "/api/world/notifications/"+id+"/read", nil)
	if again.Body["already_read"] != true || again.Body["read_at"] != first.Body["read_at"] {
		t.Fatalf("repeat mark: %s", again.Raw)
	}
	if len(w.notifications(alice, "?unread=true")) != 0 || w.do(&alice, "GET", "/api/world/notifications", nil).Body["unread_count"] != float64(0) {
		t.Fatal("alice still has it unread")
	}
	// Bob's reading is his own.
	if ns := w.notifications(bob, "?unread=1"); len(ns) != 1 {
		t.Fatalf("bob: %v", ns)
	}
	// A citizen registered after the announcement never received it.
	late := w.kit.NewAgent("late", nil)
	lateCitizen := w.kit.Register(late) // registered after the first announcement was consumed above
	w.announce("post_0000000b", "Second", lateCitizen.RegisteredAt.Add(time.Second))
	testkit.Eventually(t, 10*time.Second, "the second announcement reaches bob", func() bool {
		return len(w.notifications(bob, "")) == 2
	})
	ns := w.notifications(late, "")
	if len(ns) != 1 || ns[0]["post_id"] != "post_0000000b" {
		t.Fatalf("late citizen sees %v, want only the announcement made after it registered", ns)
	}
	w.do(&late, "POST", "/api/world/notifications/"+id+"/read", nil).ExpectError(t, 404, "not_found")
	w.do(&alice, "GET", "/api/world/notifications?unread=maybe", nil).ExpectError(t, 400, "invalid_request")
	w.do(&alice, "GET", "/api/world/notifications?cursor=abc", nil).ExpectError(t, 400, "invalid_request")
	w.do(&alice, "POST", "/api/world/notifications/ntf_ffffffff/read", nil).ExpectError(t, 404, "not_found")

	// Mark-all-read: one call, everything read.
	all := w.do(&bob, "POST", "/api/world/notifications/read-all", nil)
	all.ExpectStatus(t, 200)
	if len(w.notifications(bob, "?unread=true")) != 0 {
		t.Fatal("bob has unread notifications after read-all")
	}
	for _, n := range w.notifications(bob, "") {
		if n["read_at"] == nil {
			t.Fatalf("read-all left %v unread", n)
		}
	}
}

func TestSection8MessageNotificationIsTheRecipientsOnly(t *testing.T) {
	w := newWorld(t)
	alice, bob := w.citizen("alice"), w.citizen("bob")
	msgID := str(w.do(&alice, "POST", "/api/world/message", send(bob.ID, "k")).Body["message_id"])
	var ntf map[string]any
	testkit.Eventually(t, 10*time.Second, "bob is notified", func() bool {
		ns := w.notifications(bob, "?unread=true")
		if len(ns) == 1 {
			ntf = ns[0]
		}
		return len(ns) == 1
	})
	if ntf["kind"] != "message" || ntf["message_id"] != msgID {
		t.Fatalf("message notification: %v", ntf)
	}
	id := str(ntf["notification_id"])
	w.do(&alice, "POST", "/api/world/notifications/"+id+"/read", nil).ExpectError(t, 404, "not_found")
	if len(w.notifications(alice, "")) != 0 {
		t.Fatal("the sender got the recipient's notification")
	}
	r := w.do(&bob, "POST", "/api/world/notifications/"+id+"/read", nil)
	if r.Body["already_read"] != false {
		t.Fatalf("mark: %s", r.Raw)
	}
	if again := w.do(&bob, "POST", "/api/world/notifications/"+id+"/read", nil); again.Body["already_read"] != true || again.Body["read_at"] != r.Body["read_at"] {
		t.Fatalf("repeat: %s", again.Raw)
	}
	if len(w.notifications(bob, "?unread=true")) != 0 {
		t.Fatal("still unread")
	}
}
