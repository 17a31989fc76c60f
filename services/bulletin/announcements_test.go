package bulletin_test

import (
	"net/http"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/services/bulletin"
)

func pinnedID(doc map[string]any) any {
	p, _ := doc["pinned"].(map[string]any)
	if p == nil {
		return nil
	}
	return p["post_id"]
}

// TestAnnouncementLifecycle posts, pins and unpins through the ambassador's
// routes and follows each change to the bulletin (CONTRACT §6, §11).
func TestAnnouncementLifecycle(t *testing.T) {
	w := newWorld(t, bulletin.Options{})

	// CONTRACT §11: pinned defaults to true.
	r := w.do(t, http.MethodPost, "/api/admin/announcements", map[string]any{"title": "Welcome", "content": "Hello,\ncitizens."}, ambassador)
	r.ExpectStatus(t, 201)
	first := r.Body["announcement"].(map[string]any)
	firstID := first["post_id"].(string)
	if !strings.HasPrefix(firstID, "ann_") || len(firstID) != 12 || first["pinned"] != 1.0 || first["content"] != "Hello,\ncitizens." {
		t.Fatalf("SEED §2.4 announcement: %s", r.Raw)
	}
	doc := w.waitRendered(t, "first announcement pinned", func(d map[string]any) bool { return pinnedID(d) == firstID })
	item := doc["feed"].([]any)[0].(map[string]any)
	if !strings.HasPrefix(item["line"].(string), "#announcement  ") || strings.Count(item["line"].(string), "  ") != 1 ||
		item["body"] != "Hello,\ncitizens." || item["id"] != firstID {
		t.Fatalf("CONTRACT §6 announcement feed item: %s", jsonOf(t, item))
	}

	// pinned: false leaves the pin where it is.
	r = w.do(t, http.MethodPost, "/api/admin/announcements", map[string]any{"title": "Quiet", "content": "x", "pinned": false}, ambassador)
	r.ExpectStatus(t, 201)
	quietID := r.Body["announcement"].(map[string]any)["post_id"].(string)
	if r.Body["announcement"].(map[string]any)["pinned"] != 0.0 {
		t.Fatalf("pinned false: %s", r.Raw)
	}
	doc = w.waitRendered(t, "second announcement listed", func(d map[string]any) bool { return len(d["announcements"].([]any)) == 2 })
	if pinnedID(doc) != firstID {
		t.Fatalf("an unpinned post moved the pin: %v", pinnedID(doc))
	}

	// CONTRACT §6: pinning one unpins the previous.
	r = w.do(t, http.MethodPost, "/api/admin/announcements/"+quietID+"/pin", nil, ambassador)
	r.ExpectStatus(t, 200)
	if r.Body["announcement"].(map[string]any)["pinned"] != 1.0 {
		t.Fatalf("pin: %s", r.Raw)
	}
	doc = w.waitRendered(t, "pin moved", func(d map[string]any) bool { return pinnedID(d) == quietID })
	for _, a := range doc["announcements"].([]any) {
		a := a.(map[string]any)
		if want := map[bool]float64{true: 1, false: 0}[a["post_id"] == quietID]; a["pinned"] != want {
			t.Fatalf("one pinned at a time: %s", jsonOf(t, doc["announcements"]))
		}
	}
	// Pinning it again changes nothing.
	w.do(t, http.MethodPost, "/api/admin/announcements/"+quietID+"/pin", nil, ambassador).ExpectStatus(t, 200)

	// Unpin: nothing pinned renders null.
	r = w.do(t, http.MethodPost, "/api/admin/announcements/"+quietID+"/unpin", nil, ambassador)
	r.ExpectStatus(t, 200)
	if r.Body["announcement"].(map[string]any)["pinned"] != 0.0 {
		t.Fatalf("unpin: %s", r.Raw)
	}
	doc = w.waitRendered(t, "nothing pinned", func(d map[string]any) bool { return d["pinned"] == nil })
	if doc["pinned_announcement"] != nil {
		t.Fatal("CONTRACT §6 pinned_announcement is null when nothing is pinned")
	}
	if n := len(doc["feed"].([]any)); n != 2 {
		t.Fatalf("pins are not feed items; want 2 announcement items, got %d", n)
	}
}

func TestAnnouncementErrors(t *testing.T) {
	w := newWorld(t, bulletin.Options{})
	cases := []struct {
		name    string
		path    string
		body    any
		headers map[string]string
		status  int
		code    string
	}{
		{"CONTRACT §11 admin route without a token", "/api/admin/announcements", map[string]any{"title": "t", "content": "c"}, nil, 401, "unauthenticated"},
		{"CONTRACT §11 admin route with a wrong token", "/api/admin/announcements", map[string]any{"title": "t", "content": "c"},
			map[string]string{"Authorization": "Bearer wrong-token-wrong-token"}, 401, "unauthenticated"},
		{"CONTRACT §11 missing title", "/api/admin/announcements", map[string]any{"content": "c"}, ambassador, 400, "invalid_request"},
		{"CONTRACT §11 empty content", "/api/admin/announcements", map[string]any{"title": "t", "content": ""}, ambassador, 400, "invalid_request"},
		{"CONTRACT §1 wrong JSON type", "/api/admin/announcements", map[string]any{"title": 5, "content": "c"}, ambassador, 400, "invalid_request"},
		{"CONTRACT §1 pinned of the wrong type", "/api/admin/announcements", map[string]any{"title": "t", "content": "c", "pinned": "yes"}, ambassador, 400, "invalid_request"},
		{"CONTRACT §1 malformed JSON", "/api/admin/announcements", `{"title":`, ambassador, 400, "invalid_request"},
		{"CONTRACT §11 title over 200 characters", "/api/admin/announcements", map[string]any{"title": strings.Repeat("t", 201), "content": "c"}, ambassador, 422, "validation_failed"},
		{"CONTRACT §11 content over its limit", "/api/admin/announcements", map[string]any{"title": "t", "content": strings.Repeat("c", 2001)}, ambassador, 422, "validation_failed"},
		{"CONTRACT §1 unknown post_id", "/api/admin/announcements/ann_00000000/pin", nil, ambassador, 404, "not_found"},
		{"CONTRACT §1 malformed post_id", "/api/admin/announcements/nope/unpin", nil, ambassador, 404, "not_found"},
		{"CONTRACT §11 pin without a token", "/api/admin/announcements/ann_00000000/pin", nil, nil, 401, "unauthenticated"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w.do(t, http.MethodPost, c.path, c.body, c.headers).ExpectError(t, c.status, c.code)
		})
	}
	// None of the refused requests wrote anything.
	n, err := w.deps.DB.Collection("announcements").CountDocuments(w.kit.Ctx(), bson.M{})
	if err != nil || n != 0 {
		t.Fatalf("refused requests left %d announcements (%v)", n, err)
	}
	w.do(t, http.MethodGet, "/api/admin/announcements", nil, ambassador).ExpectError(t, 405, "method_not_allowed")
}
