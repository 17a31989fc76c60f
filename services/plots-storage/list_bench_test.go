package plotsstorage_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/testkit"
)

// gardenOf stores n garden file heads (one per citizen, /garden/<Name>/
// <item>.md, as the world holds them) straight into the database
// before the service starts: planting 10,000 through the router would time
// the plantings, not the list.
func gardenOf(n int) func(*testkit.Kit) {
	return func(kit *testkit.Kit) {
		at := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
		docs := make([]any, n)
		for i := range docs {
			path := fmt.Sprintf("/garden/Seed%05d/g0.md", i)
			docs[i] = bson.M{"_id": "plot_0_0:commons:" + path, "plot_id": "plot_0_0", "tenancy": "commons", "path": path,
				"version": int64(1), "size_bytes": int64(20), "content_type": "text/markdown",
				"content_hash": "sha256:5d41402abc4b2a76b9719d911017c592ae1c6a0b2f6e8f4d7cbd0c5a1d8a4a11",
				"written_at":   at.Add(time.Duration(i) * time.Millisecond), "written_by": fmt.Sprintf("emb_%024d", i),
				"blob_id": fmt.Sprintf("%032x", i), "hold": "", "planted_by": fmt.Sprintf("emb_%024d", i), "removed": false}
		}
		if _, err := kit.DB.Collection("garden_files").InsertMany(context.Background(), docs); err != nil {
			kit.T.Fatal(err)
		}
	}
}

// BenchmarkGardenList10k lists the whole garden of 10,000 files through the
// production router (the answer is about 2.3 MB of JSON), anonymously, as
// the public garden is read; gzip as a client that asks for it; one page of
// 100 from the middle; and with a planting before each list, the cost when
// no answer can be reused.
func BenchmarkGardenList10k(b *testing.B) {
	w := newWorldWith(b, gardenOf(10_000))
	const whole = "/api/world/storage/list?plot_id=plot_0_0"
	var get func(b *testing.B, path string, headers map[string]string, least int64)
	// The answer is read and dropped, not decoded: decoding 10,000
	// entries into maps would cost more than the answer.
	list := func(b *testing.B, headers map[string]string) { get(b, whole, headers, 1<<20) }
	get = func(b *testing.B, path string, headers map[string]string, least int64) {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		resp, err := w.app.Test(req, -1)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != 200 || n < least && headers == nil {
			b.Fatalf("list: %d, %d bytes", resp.StatusCode, n)
		}
	}
	if r := w.do(b, http.MethodGet, whole, nil, nil); num(r.Body["total"]) != 10_000 {
		b.Fatalf("the garden holds %v files", r.Body["total"])
	}
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			list(b, nil)
		}
	})
	b.Run("gzip", func(b *testing.B) {
		gz := map[string]string{"Accept-Encoding": "gzip"}
		for b.Loop() {
			list(b, gz)
		}
	})
	b.Run("page-of-100", func(b *testing.B) {
		page := whole + "&limit=100&cursor=" + base64.RawURLEncoding.EncodeToString([]byte(`{"after":"/garden/Seed05000/g0.md"}`))
		for b.Loop() {
			get(b, page, nil, 100*200)
		}
	})
	b.Run("after-a-planting", func(b *testing.B) {
		ada := w.citizen("Ada")
		w.projectionCaughtUp(b, 1)
		i := 0
		for b.Loop() {
			// Tending 50 paths in turn: the garden's count stays put.
			if r := w.write(b, ada, commons, fmt.Sprintf("/garden/Ada/%d.md", i%50), []byte("tended")); r.Status != 201 {
				b.Fatalf("planting: %d %s", r.Status, r.Raw)
			}
			list(b, nil)
			i++
		}
	})
}
