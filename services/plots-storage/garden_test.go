package plotsstorage_test

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/proto/catalog"
	plotsv1 "sharedworld.dev/proto/plots/v1"
)

const commons = "plot_0_0"

// verb is the garden verb of a successful write's receipt.
func verb(t *testing.T, r testkit.Response) string {
	t.Helper()
	r.ExpectStatus(t, 201)
	v, _ := r.Body["receipt"].(map[string]any)["verb"].(string)
	return v
}

func TestGardenWritesAndVerbs(t *testing.T) {
	w := newWorld(t)
	log := w.watchPlots(t)
	ada := w.citizen("Ada")
	bob := w.citizen("Bob")
	nameless := w.citizen("")

	r := w.write(t, ada, commons, "/garden/ada/poem.md", []byte("roses"))
	if v := verb(t, r); v != "planted" {
		t.Fatalf("§4 a new garden path is planted, got %q", v)
	}
	r = w.write(t, bob, commons, "/garden/bob/song.md", []byte("la"))
	if v := verb(t, r); v != "planted" {
		t.Fatalf("§4 planted, got %q", v)
	}
	r = w.write(t, bob, commons, "/garden/ada/poem.md", []byte("roses, tended"))
	if v := verb(t, r); v != "tended" {
		t.Fatalf("§4 an existing garden path is tended (by anyone), got %q", v)
	}
	r = w.write(t, nameless, commons, "/garden/index.md", []byte("# garden"))
	if v := verb(t, r); v != "tended" {
		t.Fatalf("§4 /garden/index.md is always tended, even when new, got %q", v)
	}

	// The garden is public: no credentials needed to read or list it.
	r = w.read(t, nil, commons, "/garden/ada/poem.md")
	r.ExpectStatus(t, 200)
	if r.Body["written_by"] != bob.ID {
		t.Fatalf("§4 garden read: %s", r.Raw)
	}
	r = w.do(t, http.MethodGet, "/api/world/storage/list?plot_id=plot_0_0&prefix=/garden/", nil, nil)
	if paths(r) != "[/garden/ada/poem.md /garden/bob/song.md /garden/index.md]" {
		t.Fatalf("§4 garden listing: %s", r.Raw)
	}

	planted := log.waitFor(t, catalog.TypeGardenPlanted, 2)
	tended := log.waitFor(t, catalog.TypeGardenTended, 2)
	type seen struct {
		path, agent, name string
		files             int64
	}
	var got []seen
	for _, e := range append(planted, tended...) {
		if e.Subject != commons {
			t.Fatalf("§6 garden events are keyed by the commons: %s", e.Subject)
		}
		m, err := e.Decode()
		if err != nil {
			t.Fatal(err)
		}
		switch g := m.(type) {
		case *plotsv1.GardenPlanted:
			got = append(got, seen{g.GetPath(), g.GetAgentId(), g.GetAgentName(), g.GetGardenFiles()})
		case *plotsv1.GardenTended:
			got = append(got, seen{g.GetPath(), g.GetAgentId(), g.GetAgentName(), g.GetGardenFiles()})
		}
	}
	want := []seen{
		{"/garden/ada/poem.md", ada.ID, "Ada", 1},
		{"/garden/bob/song.md", bob.ID, "Bob", 2},
		{"/garden/ada/poem.md", bob.ID, "Bob", 2},
		{"/garden/index.md", nameless.ID, "", 3},
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("§4 garden event %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestGardenRefusals(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	stranger := w.kit.NewAgent("Stranger", nil)
	w.write(t, ada, commons, "/garden/ada/poem.md", []byte("x")).ExpectStatus(t, 201)
	for _, c := range []struct {
		name   string
		path   string
		status int
		code   string
	}{
		{"§11 a non-garden path on the commons", "/notes.md", 403, "permission_denied"},
		{"§11 /garden itself", "/garden", 403, "permission_denied"},
		{"§11 a look-alike prefix", "/gardens/a/b.md", 403, "permission_denied"},
		{"§11 a file straight under /garden/", "/garden/poem.md", 400, "invalid_request"},
		{"§11 too deep", "/garden/ada/2026/poem.md", 400, "invalid_request"},
		{"§11 not markdown", "/garden/ada/poem.txt", 400, "invalid_request"},
		{"§4 traversal out of the garden", "/garden/../notes.md", 400, "invalid_request"},
		{"§4 encoded traversal", "/garden/%2e%2e/x.md", 400, "invalid_request"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w.write(t, ada, commons, c.path, []byte("x")).ExpectError(t, c.status, c.code)
		})
	}
	w.write(t, stranger, commons, "/garden/s/x.md", []byte("x")).ExpectError(t, 403, "not_registered")
	w.write(t, ada, commons, "/garden/ada/big.md", bytes.Repeat([]byte("x"), 1<<20+1)).ExpectError(t, 413, "payload_too_large")
	// A garden file is removed by its planter or the ambassador, by no other citizen.
	bob := w.citizen("Bob")
	w.do(t, http.MethodPost, "/api/world/storage/delete", map[string]any{"plot_id": commons, "path": "/garden/ada/poem.md"}, bob.Headers()).
		ExpectError(t, 403, "permission_denied")
	w.read(t, nil, commons, "/garden/ada/poem.md").ExpectStatus(t, 200)
	// Permissions of the commons belong to nobody who can call.
	w.do(t, http.MethodGet, "/api/world/plots/plot_0_0/permissions", nil, ada.Headers()).ExpectError(t, 403, "permission_denied")
}

// The bulletin keeps the garden_files of the latest garden event, so the
// events must be dated in the order their writes took their quota holds:
// writers planting at once get dates apart, and the latest carries the
// count of every file planted.
func TestGardenEventsAreDatedInTheOrderOfTheirCounts(t *testing.T) {
	w := newWorld(t)
	log := w.watchPlots(t)
	ada := w.citizen("Ada")
	const n = 12
	statuses := concurrently(n, func(i int) int {
		return w.write(t, ada, commons, fmt.Sprintf("/garden/ada/%02d.md", i), []byte("x")).Status
	})
	if count(statuses, 201) != n {
		t.Fatalf("plantings answered %v", statuses)
	}
	type dated struct {
		at    time.Time
		files int64
	}
	var got []dated
	for _, e := range log.waitFor(t, catalog.TypeGardenPlanted, n) {
		m, err := e.Decode()
		if err != nil {
			t.Fatal(err)
		}
		g := m.(*plotsv1.GardenPlanted)
		got = append(got, dated{g.GetAt().AsTime(), g.GetGardenFiles()})
	}
	slices.SortFunc(got, func(a, b dated) int { return a.at.Compare(b.at) })
	for i, d := range got {
		if d.files != int64(i+1) || i > 0 && !d.at.After(got[i-1].at) {
			t.Fatalf("garden events by date: %+v; want dates apart carrying 1..%d files", got, n)
		}
	}
}
