package plotsstorage_test

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"testing"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
)

// listed is a list answer's paths with their sizes, and its total.
type listed struct {
	sizes map[string]int
	total int
}

func listOf(t *testing.T, r testkit.Response) listed {
	t.Helper()
	r.ExpectStatus(t, 200)
	var body struct {
		OK    bool `json:"ok"`
		Files []struct {
			Path string `json:"path"`
			Size int    `json:"size_bytes"`
		} `json:"files"`
		Total int `json:"total"`
	}
	if err := json.Unmarshal(r.Raw, &body); err != nil || !body.OK {
		t.Fatalf("list answer: %v %.200s", err, r.Raw)
	}
	out := listed{sizes: map[string]int{}, total: body.Total}
	for _, f := range body.Files {
		out.sizes[f.Path] = f.Size
	}
	if len(out.sizes) != out.total {
		t.Fatalf("§5 total %d for %d files", out.total, len(out.sizes))
	}
	return out
}

// plantMany plants n garden files of a, with names long enough that the
// whole garden's answer is kept (above 16 KiB from about 80 files).
func plantMany(t *testing.T, w *world, a testkit.Agent, n int) {
	t.Helper()
	for i := range n {
		w.write(t, a, commons, fmt.Sprintf("/garden/%s/a-planting-with-a-longer-name-%03d.md", a.Name, i), []byte("seed")).ExpectStatus(t, 201)
	}
}

// A list answers what was written before it, every time: a planting,
// a tending and a removal, by another citizen than the one who listed,
// each change the next answer, whichever way the answer is sent.
func TestGardenListFollowsEveryWrite(t *testing.T) {
	w := newWorld(t)
	ada, bob := w.citizen("ada"), w.citizen("bob")
	plantMany(t, w, ada, 100)
	const whole = "/api/world/storage/list?plot_id=plot_0_0"
	gz := map[string]string{"Accept-Encoding": "gzip"}

	first := w.do(t, http.MethodGet, whole, nil, nil)
	if l := listOf(t, first); l.total != 100 {
		t.Fatalf("§5 the whole garden: %d files", l.total)
	}
	if len(first.Raw) < 16<<10 {
		t.Fatalf("the answer must be large enough to be kept: %d bytes", len(first.Raw))
	}
	if again := w.do(t, http.MethodGet, whole, nil, nil); !bytes.Equal(again.Raw, first.Raw) {
		t.Fatal("a list with no write in between answers the same bytes")
	}
	// Where answers are kept (the embedded backend) a client that accepts
	// gzip gets the answer compressed; on a shared database, where each
	// answer is encoded anew, it is not compressed for each request.
	zipped := w.do(t, http.MethodGet, whole, nil, gz)
	if kept := testkit.Mode() == mongox.Exclusive; kept != (zipped.Header["Content-Encoding"] == "gzip") {
		t.Fatalf("kept answers %v, Content-Encoding %q", kept, zipped.Header["Content-Encoding"])
	}
	if !bytes.Equal(unzipped(t, zipped), first.Raw) {
		t.Fatal("the answer in gzip is the answer")
	}

	steps := []struct {
		name  string
		write func() testkit.Response
		check func(listed) bool
	}{
		{"another citizen plants", func() testkit.Response {
			return w.write(t, bob, commons, "/garden/bob/new.md", []byte("sprout"))
		}, func(l listed) bool { return l.total == 101 && l.sizes["/garden/bob/new.md"] == 6 }},
		{"another citizen tends", func() testkit.Response {
			return w.write(t, bob, commons, "/garden/ada/a-planting-with-a-longer-name-007.md", []byte("tended!"))
		}, func(l listed) bool {
			return l.total == 101 && l.sizes["/garden/ada/a-planting-with-a-longer-name-007.md"] == 7
		}},
		{"the planter removes", func() testkit.Response {
			return w.removeOwn(t, ada, "/garden/ada/a-planting-with-a-longer-name-003.md")
		}, func(l listed) bool {
			_, there := l.sizes["/garden/ada/a-planting-with-a-longer-name-003.md"]
			return l.total == 100 && !there
		}},
	}
	for _, s := range steps {
		// Read the kept answer in both forms first, so the change must
		// replace answers that are there.
		w.do(t, http.MethodGet, whole, nil, gz).ExpectStatus(t, 200)
		w.do(t, http.MethodGet, whole+"&prefix=/garden/", nil, nil).ExpectStatus(t, 200)
		if r := s.write(); r.Status/100 != 2 {
			t.Fatalf("%s: %d %s", s.name, r.Status, r.Raw)
		}
		plain := w.do(t, http.MethodGet, whole, nil, nil)
		zipped := w.do(t, http.MethodGet, whole, nil, gz)
		zipped.Raw = unzipped(t, zipped)
		prefixed := w.do(t, http.MethodGet, whole+"&prefix=/garden/", nil, nil)
		for form, r := range map[string]testkit.Response{"plain": plain, "gzip": zipped, "prefix": prefixed} {
			if l := listOf(t, r); !s.check(l) {
				t.Fatalf("§5 after %q the %s list must show it: total %d", s.name, form, l.total)
			}
		}
	}
}

// unzipped is r's body, gunzipped when it came compressed.
func unzipped(t *testing.T, r testkit.Response) []byte {
	t.Helper()
	if r.Header["Content-Encoding"] != "gzip" {
		return r.Raw
	}
	zr, err := gzip.NewReader(bytes.NewReader(r.Raw))
	if err != nil {
		t.Fatalf("gzip answer: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gzip answer: %v", err)
	}
	return out
}

// A plot's kept list goes with its tenancy: abandoned, the plot lists
// nothing; its files never reach the next tenant's list.
func TestPlotListFollowsWritesDeletesAndTenancy(t *testing.T) {
	w := newWorld(t)
	ada, bob := w.citizen("Ada"), w.citizen("Bob")
	id := w.claim(t, ada, 7, 7)
	for i := range 100 {
		w.write(t, ada, id, fmt.Sprintf("/notes/a-note-with-a-rather-long-name-%03d.md", i), []byte("n")).ExpectStatus(t, 201)
	}
	list := func(a testkit.Agent) testkit.Response {
		return w.do(t, http.MethodGet, "/api/world/storage/list?plot_id="+id, nil, a.Headers())
	}
	if l := listOf(t, list(ada)); l.total != 100 {
		t.Fatalf("§5 list: %d", l.total)
	}
	w.write(t, ada, id, "/notes/last.md", []byte("x")).ExpectStatus(t, 201)
	if l := listOf(t, list(ada)); l.total != 101 || l.sizes["/notes/last.md"] != 1 {
		t.Fatalf("§5 list after a write: %d", l.total)
	}
	w.do(t, http.MethodPost, "/api/world/storage/delete", map[string]any{"plot_id": id, "path": "/notes/last.md"}, ada.Headers()).ExpectStatus(t, 200)
	if l := listOf(t, list(ada)); l.total != 100 {
		t.Fatalf("§5 list after a delete: %d", l.total)
	}
	w.do(t, http.MethodPost, "/api/world/plots/abandon", nil, ada.Headers()).ExpectStatus(t, 200)
	w.claim(t, bob, 7, 7)
	if l := listOf(t, list(bob)); l.total != 0 {
		t.Fatalf("§5 the next tenant lists none of the last one's files: %d", l.total)
	}
}

// Pages on ask (limit or cursor): by path, nothing repeated or skipped,
// total counting the whole listing; without either the list is whole.
func TestListPages(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	id := w.claim(t, ada, 3, 4)
	for _, p := range []string{"/notes/c.md", "/notes/a.md", "/other/x.md", "/notes/e.md", "/notes/b.md", "/notes/d.md"} {
		w.write(t, ada, id, p, []byte("n")).ExpectStatus(t, 201)
	}
	base := "/api/world/storage/list?plot_id=" + id + "&prefix=/notes/"
	page := func(query string) (paths []string, next string, total int) {
		t.Helper()
		r := w.do(t, http.MethodGet, base+query, nil, ada.Headers())
		r.ExpectStatus(t, 200)
		for _, f := range r.Body["files"].([]any) {
			paths = append(paths, f.(map[string]any)["path"].(string))
		}
		pg := r.Body["pagination"].(map[string]any)
		if num(pg["count"]) != len(paths) {
			t.Fatalf("pagination.count %v for %d files", pg["count"], len(paths))
		}
		next, _ = pg["next"].(string)
		return paths, next, num(r.Body["total"])
	}
	got, next, total := page("&limit=2")
	if fmt.Sprint(got) != "[/notes/a.md /notes/b.md]" || next == "" || total != 5 {
		t.Fatalf("first page: %v next %q total %d", got, next, total)
	}
	// A file written behind the cursor is not seen; one ahead of it is.
	w.write(t, ada, id, "/notes/0.md", []byte("n")).ExpectStatus(t, 201)
	w.write(t, ada, id, "/notes/f.md", []byte("n")).ExpectStatus(t, 201)
	var rest []string
	for next != "" {
		var p []string
		p, next, total = page("&limit=2&cursor=" + next)
		rest = append(rest, p...)
	}
	if fmt.Sprint(rest) != "[/notes/c.md /notes/d.md /notes/e.md /notes/f.md]" || total != 7 {
		t.Fatalf("later pages: %v total %d", rest, total)
	}
	if got, next, _ := page("&limit=7"); len(got) != 7 || next != "" {
		t.Fatalf("an exact last page has no next: %d files, next %q", len(got), next)
	}
	if got, next, _ := page("&cursor=" + url.QueryEscape(httpxCursor(t, "/notes/c.md"))); fmt.Sprint(got) != "[/notes/d.md /notes/e.md /notes/f.md]" || next != "" {
		t.Fatalf("a cursor alone pages by the default limit: %v %q", got, next)
	}
	for _, bad := range []string{"&limit=0", "&limit=x", "&cursor=e30", "&cursor=%25%25", "&limit=2&cursor=bm90LWpzb24", "&cursor=eyJhZnRlciI6IiJ9", "&cursor=eyJhZnRlciI6Im5vdC1hLXBhdGgifQ"} {
		w.do(t, http.MethodGet, base+bad, nil, ada.Headers()).ExpectError(t, 400, "invalid_request")
	}
	whole := w.do(t, http.MethodGet, base, nil, ada.Headers())
	if _, paged := whole.Body["pagination"]; paged || num(whole.Body["total"]) != 7 {
		t.Fatalf("without limit or cursor the list is whole: %.300s", whole.Raw)
	}
}

// httpxCursor is a cursor as the list makes it (EncodeCursor of the last path).
func httpxCursor(t *testing.T, after string) string {
	t.Helper()
	b, err := json.Marshal(map[string]string{"after": after})
	if err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}
