package messaging_test

import (
	"strings"
	"testing"
	"time"
)

func post(title string) map[string]any {
	return map[string]any{"title": title, "content": "<p>Hello <script>x()</script>world</p>"}
}

func TestSection8CommonsLimitsOnTheWorldsClock(t *testing.T) {
	w := newWorld(t)
	alice := w.citizen("alice")
	// Start mid-day so that ten posts 10 s apart stay within one UTC day.
	day := time.Now().UTC().Truncate(24 * time.Hour).Add(12 * time.Hour)
	w.clock.Set(day)

	r := w.do(&alice, "POST", "/api/world/commons/introductions", post("I am alice"))
	r.ExpectStatus(t, 201)
	id := str(r.Body["post_id"])
	if !strings.HasPrefix(id, "post_") || len(id) != 13 {
		t.Fatalf("post id %q", id)
	}
	// 10 seconds apart, refused requests not counted.
	w.do(&alice, "POST", "/api/world/commons/general", map[string]any{"title": ""}).ExpectError(t, 400, "invalid_request")
	w.do(&alice, "POST", "/api/world/commons/general", post(strings.Repeat("t", 201))).ExpectError(t, 422, "validation_failed")
	w.do(&alice, "POST", "/api/world/commons/nowhere", post("x")).ExpectError(t, 404, "not_found")
	w.do(&alice, "POST", "/api/world/commons/announcements", post("x")).ExpectError(t, 403, "permission_denied")
	w.clock.Set(day.Add(4 * time.Second))
	soon := w.do(&alice, "POST", "/api/world/commons/general", post("too soon"))
	soon.ExpectError(t, 429, "rate_limited")
	if soon.Header["Retry-After"] != "6" || !strings.Contains(str(soon.Body["hint"]), "6 seconds") {
		t.Fatalf("wait: Retry-After %q, hint %v", soon.Header["Retry-After"], soon.Body["hint"])
	}
	for i := 2; i <= 10; i++ {
		w.clock.Set(day.Add(time.Duration(i) * 10 * time.Second))
		w.do(&alice, "POST", "/api/world/commons/general", post("post")).ExpectStatus(t, 201)
	}
	w.clock.Set(day.Add(time.Hour))
	full := w.do(&alice, "POST", "/api/world/commons/general", post("eleventh"))
	full.ExpectError(t, 429, "rate_limited")
	if full.Header["Retry-After"] != "39600" {
		t.Fatalf("daily limit Retry-After %q, want the 11 h to midnight", full.Header["Retry-After"])
	}
	w.clock.Set(day.Add(12 * time.Hour))
	w.do(&alice, "POST", "/api/world/commons/general", post("a new day")).ExpectStatus(t, 201)

	// The ambassador's channel and the public lists.
	w.admin("POST", "/api/world/commons/announcements", post("Rules")).ExpectStatus(t, 201)
	chans := items(w.do(nil, "GET", "/api/world/commons", nil).Body["channels"])
	counts := map[string]float64{}
	for _, c := range chans {
		counts[str(c["name"])] = c["posts"].(float64)
	}
	if len(chans) != 5 || counts["general"] != 10 || counts["introductions"] != 1 || counts["announcements"] != 1 || counts["help"] != 0 {
		t.Fatalf("channels: %v", chans)
	}
	page := w.do(nil, "GET", "/api/world/commons/general?limit=3", nil)
	posts := items(page.Body["posts"])
	if len(posts) != 3 || posts[0]["title"] != "a new day" || posts[0]["content"] != "<p>Hello <script>x()</script>world</p>" || page.Body["pagination"].(map[string]any)["next"] == nil {
		t.Fatalf("channel page: %s", page.Raw)
	}
	// §8 every channel is readable, the ambassador's too.
	ann := w.do(nil, "GET", "/api/world/commons/announcements", nil)
	ann.ExpectStatus(t, 200)
	if got := items(ann.Body["posts"]); len(got) != 1 || got[0]["title"] != "Rules" {
		t.Fatalf("announcements channel page: %s", ann.Raw)
	}
	w.do(nil, "GET", "/api/world/commons/nowhere", nil).ExpectError(t, 404, "not_found")
	w.do(nil, "GET", "/api/world/commons/general?cursor=@@", nil).ExpectError(t, 400, "invalid_request")
	w.do(nil, "POST", "/api/world/commons/general", post("x")).ExpectError(t, 401, "unauthenticated")
	testAmbassadorWrongToken(t, w)
}

func testAmbassadorWrongToken(t *testing.T, w *world) {
	t.Helper()
	r := w.do(nil, "POST", "/api/world/commons/announcements", post("x"))
	r.ExpectError(t, 403, "permission_denied")
}

// TestTextIsKeptAsSent: §8 a post and a message to the ambassador are JSON
// text, stored and listed byte for byte: citizens post code, and nothing
// that looks like markup is taken out of it (what renders it escapes it).
func TestTextIsKeptAsSent(t *testing.T) {
	w := newWorld(t)
	alice := w.citizen("alice")
	code := "if a<b and b>c then swap\n  <script>alert(1)</script> &amp; "
	w.do(&alice, "POST", "/api/world/commons/general", map[string]any{"title": "<b>t</b>", "content": code}).ExpectStatus(t, 201)
	posts := items(w.do(nil, "GET", "/api/world/commons/general", nil).Body["posts"])
	if len(posts) != 1 || posts[0]["title"] != "<b>t</b>" || posts[0]["content"] != code {
		t.Fatalf("§8 the post was rewritten: %v", posts)
	}
	w.do(&alice, "POST", "/api/world/inbox", map[string]any{"subject": "<i>x</i>", "body": "<script>alert(1)</script>", "type": "security"}).ExpectStatus(t, 201)
	got := items(w.admin("GET", "/api/admin/inbox", nil).Body["messages"])
	if len(got) != 1 || got[0]["subject"] != "<i>x</i>" || got[0]["body"] != "<script>alert(1)</script>" {
		t.Fatalf("§8 the message to the ambassador was rewritten: %v", got)
	}
	w.do(&alice, "POST", "/api/world/commons/help", map[string]any{"title": "t", "content": " \n "}).ExpectError(t, 400, "invalid_request")
}
