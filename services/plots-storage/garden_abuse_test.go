package plotsstorage_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// removeOwn is a citizen's removal of a garden file (the storage delete).
func (w *world) removeOwn(t testing.TB, a testkit.Agent, path string) testkit.Response {
	t.Helper()
	return w.do(t, http.MethodPost, "/api/world/storage/delete", map[string]any{"plot_id": commons, "path": path}, a.Headers())
}

// removeAsAmbassador is the admin removal of any garden file.
func (w *world) removeAsAmbassador(t testing.TB, token, path string) testkit.Response {
	t.Helper()
	h := map[string]string{}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	return w.do(t, http.MethodDelete, "/api/admin/garden/"+strings.TrimPrefix(path, "/garden/"), nil, h)
}

// expectHint checks a refusal's hint names what the caller can do.
func expectHint(t *testing.T, r testkit.Response, parts ...string) {
	t.Helper()
	hint, _ := r.Body["hint"].(string)
	for _, p := range parts {
		if !strings.Contains(hint, p) {
			t.Fatalf("hint %q should name %q", hint, p)
		}
	}
}

// Before shares, one citizen filled the garden for everyone, for good.
// Now it fills only its own share; the others keep planting; it can
// remove its own plantings and plant again; the ambassador removes any.
func TestGardenSurvivesOneCitizenFillingIt(t *testing.T) {
	w := newWorld(t)
	mallory := w.citizen("Mallory")
	ada := w.citizen("Ada")
	for i := range domain.ShareMaxFiles {
		w.write(t, mallory, commons, fmt.Sprintf("/garden/m/%03d.md", i), nil).ExpectStatus(t, 201)
	}
	r := w.write(t, mallory, commons, "/garden/m/one-more.md", nil)
	r.ExpectError(t, 413, "payload_too_large")
	expectHint(t, r, "POST /api/world/storage/delete", `"plot_id": "plot_0_0"`)
	if msg, _ := r.Body["message"].(string); !strings.Contains(msg, "your share of the garden is full") {
		t.Fatalf("the 413 should speak of the share: %s", r.Raw)
	}

	// Everyone else still plants, and tending adds no file for the abuser.
	w.write(t, ada, commons, "/garden/ada/poem.md", []byte("roses")).ExpectStatus(t, 201)
	w.write(t, mallory, commons, "/garden/m/000.md", []byte("tended, not planted")).ExpectStatus(t, 201)
	w.write(t, mallory, commons, "/garden/index.md", []byte("# everyone's")).ExpectStatus(t, 201)

	// Nobody else removes a planting; its planter does, and may plant again.
	r = w.removeOwn(t, ada, "/garden/m/001.md")
	r.ExpectError(t, 403, "permission_denied")
	expectHint(t, r, "tend it instead")
	w.removeOwn(t, mallory, "/garden/m/001.md").ExpectStatus(t, 200)
	w.read(t, nil, commons, "/garden/m/001.md").ExpectError(t, 404, "not_found")
	w.write(t, mallory, commons, "/garden/m/again.md", nil).ExpectStatus(t, 201)
	w.write(t, mallory, commons, "/garden/m/and-again.md", nil).ExpectError(t, 413, "payload_too_large")
	w.removeOwn(t, mallory, "/garden/m/001.md").ExpectError(t, 404, "not_found")

	// The index belongs to everyone: no citizen removes it.
	r = w.removeOwn(t, mallory, "/garden/index.md")
	r.ExpectError(t, 403, "permission_denied")
	expectHint(t, r, "/garden/index.md")

	// The ambassador removes any garden file, with its token only.
	w.removeAsAmbassador(t, "", "/garden/ada/poem.md").ExpectError(t, 401, "unauthenticated")
	w.removeAsAmbassador(t, "wrong-token-0123456789abcdef", "/garden/ada/poem.md").ExpectError(t, 401, "unauthenticated")
	r = w.removeAsAmbassador(t, testkit.AmbassadorToken, "/garden/ada/poem.md")
	r.ExpectStatus(t, 200)
	if r.Body["planted_by"] != ada.ID {
		t.Fatalf("the removal names its planter: %s", r.Raw)
	}
	w.removeAsAmbassador(t, testkit.AmbassadorToken, "/garden/index.md").ExpectStatus(t, 200)
	w.removeAsAmbassador(t, testkit.AmbassadorToken, "/garden/m/002.md").ExpectStatus(t, 200)
	w.removeAsAmbassador(t, testkit.AmbassadorToken, "/garden/m/002.md").ExpectError(t, 404, "not_found")
	w.removeAsAmbassador(t, testkit.AmbassadorToken, "/garden/poem.md").ExpectError(t, 400, "invalid_request")
	w.removeAsAmbassador(t, testkit.AmbassadorToken, "/garden/a/%2e%2e.md").ExpectError(t, 400, "invalid_request")

	// The ambassador's removal freed the abuser's share by one file.
	w.write(t, mallory, commons, "/garden/m/after-pruning.md", nil).ExpectStatus(t, 201)
	r = w.do(t, http.MethodGet, "/api/world/storage/list?plot_id=plot_0_0&prefix=/garden/", nil, nil)
	r.ExpectStatus(t, 200)
	if num(r.Body["total"]) != domain.ShareMaxFiles {
		t.Fatalf("the garden lists %v files, want the abuser's %d (ada's and the index removed)", r.Body["total"], domain.ShareMaxFiles)
	}
}

// A planting's bytes count toward its planter's share, whoever tends it; a
// tend that would overfill it says how much room is left.
func TestGardenShareBytes(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	bob := w.citizen("Bob")
	big := bytes.Repeat([]byte("x"), domain.MaxFileBytes)
	for i := range domain.ShareQuotaBytes / domain.MaxFileBytes {
		w.write(t, ada, commons, fmt.Sprintf("/garden/ada/%d.md", i), big).ExpectStatus(t, 201)
	}
	r := w.write(t, ada, commons, "/garden/ada/tiny.md", []byte("x"))
	r.ExpectError(t, 413, "payload_too_large")
	expectHint(t, r, "POST /api/world/storage/delete", "smaller versions")
	w.write(t, bob, commons, "/garden/bob/tiny.md", []byte("x")).ExpectStatus(t, 201)

	// Bob shrinks one of Ada's plantings: Ada's share gets the room back.
	w.write(t, bob, commons, "/garden/ada/0.md", []byte("shrunk")).ExpectStatus(t, 201)
	w.write(t, ada, commons, "/garden/ada/tiny.md", []byte("0123456789")).ExpectStatus(t, 201)
	room := domain.MaxFileBytes - 16
	r = w.write(t, bob, commons, "/garden/ada/0.md", big)
	r.ExpectError(t, 413, "payload_too_large")
	expectHint(t, r, fmt.Sprintf("at most %d bytes larger", room))
	expectHint(t, r, "plant a file of your own")
	if msg, _ := r.Body["message"].(string); !strings.Contains(msg, "planter's") {
		t.Fatalf("a tend over the planter's share says so: %s", r.Raw)
	}
	// The hint is true: exactly that much more fits.
	w.write(t, bob, commons, "/garden/ada/0.md", big[:6+room]).ExpectStatus(t, 201)
}
