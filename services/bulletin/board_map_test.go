package bulletin_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"testing"

	"sharedworld.dev/services/bulletin"
	"sharedworld.dev/services/bulletin/internal/domain"
)

// TestBoardWholeMap: GET /api/world/bulletin/map is one bit per grid cell,
// set exactly for the claimed plots (the commons included), with its own
// ETag, 304 on If-None-Match and gzip.
func TestBoardWholeMap(t *testing.T) {
	w := newWorld(t, bulletin.Options{})
	publishBoardEvents(w)
	w.waitHandled(t, int64(boardEvents()))
	doc := w.waitRendered(t, "every event rendered", func(d map[string]any) bool { return len(d["plots"].([]any)) == 3 })

	r := w.do(t, http.MethodGet, "/api/world/bulletin/map", nil, nil)
	r.ExpectStatus(t, 200)
	if r.Header["Content-Type"] != "application/octet-stream" || len(r.Raw) != domain.OccupancyBytes || r.Header["Etag"] == "" {
		t.Fatalf("%d bytes, headers %v", len(r.Raw), r.Header)
	}
	set := 0
	for _, b := range r.Raw {
		for ; b != 0; b &= b - 1 {
			set++
		}
	}
	for _, p := range doc["plots"].([]any) {
		p := p.(map[string]any)
		if !domain.Occupied(r.Raw, int(p["x"].(float64)), int(p["y"].(float64))) {
			t.Errorf("%s is not on the map", p["plot_id"])
		}
	}
	if set != 3 {
		t.Errorf("%d cells set for 3 plots", set)
	}

	if nm := w.do(t, http.MethodGet, "/api/world/bulletin/map", nil, map[string]string{"If-None-Match": r.Header["Etag"]}); nm.Status != 304 || len(nm.Raw) != 0 {
		t.Fatalf("If-None-Match: %d, %d bytes", nm.Status, len(nm.Raw))
	}
	req, _ := http.NewRequest(http.MethodGet, "/api/world/bulletin/map", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := w.app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	zr, err := gzip.NewReader(resp.Body)
	if err != nil || resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("gzip: %v %v", err, resp.Header)
	}
	if plain, _ := io.ReadAll(zr); !bytes.Equal(plain, r.Raw) {
		t.Fatal("the gzip body is not the same map")
	}
}

// TestBoardScripts: the page's scripts are served with a tag; any other
// name is a JSON 404 with a hint.
func TestBoardScripts(t *testing.T) {
	w := newWorld(t, bulletin.Options{})
	for _, name := range []string{"live.js", "map.js"} {
		r := w.do(t, http.MethodGet, "/board/"+name, nil, nil)
		r.ExpectStatus(t, 200)
		if r.Header["Content-Type"] != "text/javascript; charset=utf-8" || r.Header["Etag"] == "" || len(r.Raw) < 1000 {
			t.Errorf("%s: %d bytes, headers %v", name, len(r.Raw), r.Header)
		}
		if nm := w.do(t, http.MethodGet, "/board/"+name, nil, map[string]string{"If-None-Match": r.Header["Etag"]}); nm.Status != 304 {
			t.Errorf("%s If-None-Match: %d", name, nm.Status)
		}
	}
	r := w.do(t, http.MethodGet, "/board/board.html", nil, nil)
	r.ExpectError(t, 404, "not_found")
	if r.Body["hint"] == "" {
		t.Error("a 404 needs a hint")
	}
}
