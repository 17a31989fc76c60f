package domain

import (
	"errors"
	"strings"
	"testing"
	"time"

	"sharedworld.dev/pkg/problem"
)

// codes are the contract's error codes of the kinds the domain returns.
var codes = map[problem.Kind]string{
	problem.KindInvalid: "invalid_request", problem.KindPermission: "permission_denied", problem.KindNotFound: "not_found",
	problem.KindConflict: "conflict", problem.KindValidation: "validation_failed", problem.KindRateLimited: "rate_limited",
}

func codeOf(err error) string {
	if pe, ok := problem.As(err); ok {
		return codes[pe.Kind]
	}
	if err != nil {
		return "other"
	}
	return ""
}

func sp(s string) *string { return &s }

func TestSection8And11ParseSend(t *testing.T) {
	ok := SendRequest{To: "emb_x", Subject: "s", Content: sp("c"), EncryptionKey: "k"}
	with := func(f func(*SendRequest)) SendRequest { r := ok; f(&r); return r }
	cases := []struct {
		name string
		req  SendRequest
		code string
	}{
		{"valid", ok, ""},
		{"body accepted for content", with(func(r *SendRequest) { r.Content, r.Body = nil, sp("b") }), ""},
		{"missing recipient", with(func(r *SendRequest) { r.To = "" }), "invalid_request"},
		{"missing subject", with(func(r *SendRequest) { r.Subject = "" }), "invalid_request"},
		{"missing content", with(func(r *SendRequest) { r.Content = nil }), "invalid_request"},
		{"missing key", with(func(r *SendRequest) { r.EncryptionKey = "" }), "invalid_request"},
		{"subject 200 code points", with(func(r *SendRequest) { r.Subject = strings.Repeat("é", 200) }), ""},
		{"subject 201 code points", with(func(r *SendRequest) { r.Subject = strings.Repeat("é", 201) }), "validation_failed"},
		{"content 10001", with(func(r *SendRequest) { r.Content = sp(strings.Repeat("a", 10001)) }), "validation_failed"},
		{"too many about ids", with(func(r *SendRequest) { r.About = make([]string, 21) }), "validation_failed"},
		{"empty about id", with(func(r *SendRequest) { r.About = []string{""} }), "invalid_request"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSend(tc.req)
			if got := codeOf(err); got != tc.code {
				t.Fatalf("got %q (%v), want %q", got, err, tc.code)
			}
		})
	}
}

func TestSection8InboxTypes(t *testing.T) {
	cases := []struct {
		typ     string
		steward bool
		code    string
	}{
		{"general", true, ""}, {"general", false, "permission_denied"},
		{"emergency", false, ""}, {"security", false, ""}, {"emergency", true, ""},
		{"", false, "invalid_request"}, {"gossip", true, "invalid_request"},
	}
	for _, tc := range cases {
		_, err := ParseInbox(InboxRequest{Subject: "s", Body: "<i>b</i>", Type: tc.typ}, tc.steward)
		if got := codeOf(err); got != tc.code {
			t.Errorf("type %q steward %v: got %q, want %q", tc.typ, tc.steward, got, tc.code)
		}
	}
}

func TestSection8CommonsNextSlot(t *testing.T) {
	noon := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		latest *Stamp
		now    time.Time
		slot   int
		wait   string
	}{
		{"first post", nil, noon, 1, ""},
		{"4 s after", &Stamp{At: noon, Slot: 1}, noon.Add(4 * time.Second), 0, "6"},
		{"exactly 10 s after", &Stamp{At: noon, Slot: 1}, noon.Add(10 * time.Second), 2, ""},
		{"tenth slot taken", &Stamp{At: noon, Slot: 10}, noon.Add(time.Hour), 0, "39600"},
		{"next UTC day", &Stamp{At: noon, Slot: 10}, noon.Add(12 * time.Hour), 1, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			slot, err := NextSlot(tc.latest, tc.now)
			if slot != tc.slot {
				t.Fatalf("slot %d, want %d (%v)", slot, tc.slot, err)
			}
			var pe *problem.Error
			if tc.wait != "" {
				if !errors.As(err, &pe) || codeOf(err) != "rate_limited" || !strings.Contains(pe.Hint, tc.wait+" seconds") {
					t.Fatalf("want a 429 naming %s seconds, got %v", tc.wait, err)
				}
			}
		})
	}
}

func TestSection8ReadStateCountsWithoutRowsPerCitizen(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	aud := Audience{Joined: 2} // joined after broadcast 2
	var st ReadState
	if n := st.UnreadBroadcasts(aud, 5); n != 3 {
		t.Fatalf("unread %d, want 3 (broadcasts 3..5)", n)
	}
	if at, already := st.MarkBroadcast(4, t0); already || !at.Equal(t0) {
		t.Fatal("first mark")
	}
	if at, already := st.MarkBroadcast(4, t0.Add(time.Hour)); !already || !at.Equal(t0) {
		t.Fatal("a repeat mark must report the first read time")
	}
	if n := st.UnreadBroadcasts(aud, 5); n != 2 {
		t.Fatalf("unread %d, want 2", n)
	}
	st.MarkAll(5, t0.Add(2*time.Hour))
	if n := st.UnreadBroadcasts(aud, 7); n != 2 || len(st.Marks) != 0 {
		t.Fatalf("after mark-all: unread %d (want 2 newer), marks %v", n, st.Marks)
	}
	if at := st.BroadcastReadAt(3); at == nil || !at.Equal(t0.Add(2*time.Hour)) {
		t.Fatal("mark-all read time")
	}
	if aud.Sees(Broadcast{Seq: 2}) || !aud.Sees(Broadcast{Seq: 3}) {
		t.Fatal("a citizen sees exactly the broadcasts made while it lived")
	}
	p := Personal{CreatedAt: t0.Add(time.Hour)}
	if st.PersonalReadAt(p) == nil || st.PersonalReadAt(Personal{CreatedAt: t0.Add(3 * time.Hour)}) != nil {
		t.Fatal("mark-all covers personal notifications made before it, not after")
	}
}
