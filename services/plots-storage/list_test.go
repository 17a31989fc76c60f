package plotsstorage_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

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
	zipped := w.do(t, http.MethodGet, whole, nil, gz)
	if zipped.Header["Content-Encoding"] != "gzip" || !bytes.Equal(gunzip(t, zipped.Raw), first.Raw) {
		t.Fatalf("a client that accepts gzip gets the same answer compressed: %q", zipped.Header["Content-Encoding"])
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
		zipped.Raw = gunzip(t, zipped.Raw)
		prefixed := w.do(t, http.MethodGet, whole+"&prefix=/garden/", nil, nil)
		for form, r := range map[string]testkit.Response{"plain": plain, "gzip": zipped, "prefix": prefixed} {
			if l := listOf(t, r); !s.check(l) {
				t.Fatalf("§5 after %q the %s list must show it: total %d", s.name, form, l.total)
			}
		}
	}
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
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
