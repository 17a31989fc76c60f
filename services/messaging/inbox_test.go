package messaging_test

import (
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/testkit"
	governancev1 "sharedworld.dev/proto/governance/v1"
)

func inbox(typ string) map[string]any {
	return map[string]any{"subject": "Help", "body": "The <b>well</b> is dry", "type": typ}
}

func TestSection8InboxTypesDailyLimitAndReply(t *testing.T) {
	w := newWorld(t)
	alice := w.citizen("alice")

	// Refused requests first: none of them may take alice's one slot of the day.
	w.do(&alice, "POST", "/api/world/inbox", inbox("general")).ExpectError(t, 403, "permission_denied")
	w.do(&alice, "POST", "/api/world/inbox", inbox("gossip")).ExpectError(t, 400, "invalid_request")
	w.do(&alice, "POST", "/api/world/inbox", map[string]any{"subject": "s", "type": "emergency"}).ExpectError(t, 400, "invalid_request")
	w.do(&alice, "POST", "/api/world/inbox", map[string]any{"subject": string(make([]byte, 201)), "body": "b", "type": "security"}).ExpectError(t, 422, "validation_failed")

	r := w.do(&alice, "POST", "/api/world/inbox", inbox("emergency"))
	r.ExpectStatus(t, 201)
	id := str(r.Body["message_id"])
	second := w.do(&alice, "POST", "/api/world/inbox", inbox("security"))
	second.ExpectError(t, 429, "rate_limited")
	if second.Header["Retry-After"] == "" {
		t.Fatal("429 without Retry-After")
	}

	mine := items(w.do(&alice, "GET", "/api/world/inbox", nil).Body["messages"])
	if len(mine) != 1 || mine[0]["body"] != "The <b>well</b> is dry" || mine[0]["reply"] != nil {
		t.Fatalf("own inbox: %v", mine)
	}
	w.do(nil, "GET", "/api/admin/inbox", nil).ExpectError(t, 401, "unauthenticated")
	w.do(&alice, "GET", "/api/admin/inbox", nil).ExpectError(t, 401, "unauthenticated")
	all := items(w.admin("GET", "/api/admin/inbox", nil).Body["messages"])
	if len(all) != 1 || all[0]["message_id"] != id || all[0]["from_agent_id"] != alice.ID || all[0]["type"] != "emergency" || all[0]["subject"] != "Help" {
		t.Fatalf("admin inbox: %v", all)
	}
	w.admin("POST", "/api/admin/inbox/"+id+"/reply", map[string]any{}).ExpectError(t, 400, "invalid_request")
	w.admin("POST", "/api/admin/inbox/msg_00000000/reply", map[string]any{"reply": "x"}).ExpectError(t, 404, "not_found")
	rep := w.admin("POST", "/api/admin/inbox/"+id+"/reply", map[string]any{"reply": "A tanker is on its way."})
	rep.ExpectStatus(t, 200)
	w.admin("POST", "/api/admin/inbox/"+id+"/reply", map[string]any{"reply": "again"}).ExpectError(t, 409, "conflict")
	if got := items(w.do(&alice, "GET", "/api/world/inbox", nil).Body["messages"]); got[0]["reply"] != "A tanker is on its way." {
		t.Fatalf("reply not in own inbox: %v", got)
	}
	testkit.Eventually(t, 10*time.Second, "alice gets an inbox_reply notification", func() bool {
		ns := w.notifications(alice, "?unread=true")
		return len(ns) == 1 && ns[0]["kind"] == "inbox_reply" && ns[0]["message_id"] == id
	})

	// The next UTC day of the world's clock opens a new slot.
	w.clock.Set(w.clock.Now().Add(24 * time.Hour))
	w.do(&alice, "POST", "/api/world/inbox", inbox("security")).ExpectStatus(t, 201)
}

func TestSection8StewardsMayWriteGeneral(t *testing.T) {
	w := newWorld(t)
	steward := w.citizen("steward")
	now := w.clock.Now()
	w.kit.Publish(events.MustNew("/services/governance", steward.ID, &governancev1.StewardElected{
		AgentId: steward.ID, Role: "chief", TermStart: timestamppb.New(now), TermEnd: timestamppb.New(now.Add(90 * 24 * time.Hour)),
		TermNumber: 1, ElectionId: "elec_0000000a",
	}, now))
	testkit.Eventually(t, 10*time.Second, "the steward may write a general message", func() bool {
		return w.do(&steward, "POST", "/api/world/inbox", inbox("general")).Status == 201
	})
}
