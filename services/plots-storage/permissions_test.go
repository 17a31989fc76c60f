package plotsstorage_test

import (
	"fmt"
	"net/http"
	"testing"
)

func TestPermissions(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	bob := w.citizen("Bob")
	id := w.claim(t, ada, 4, 2)
	path := "/api/world/plots/" + id + "/permissions"

	r := w.do(t, http.MethodGet, path, nil, ada.Headers())
	r.ExpectStatus(t, 200)
	if fmt.Sprint(r.Body["permissions"]) != "map[allowed_agents:[] banned_agents:[] governance_override:false public_read:false public_write:false]" || r.Body["plot_id"] != id {
		t.Fatalf("§11 default permissions: %s", r.Raw)
	}
	r = w.do(t, http.MethodPut, path, map[string]any{"public_read": true, "allowed_agents": []string{bob.ID, bob.ID},
		"banned_agents": []string{}, "governance_override": true, "path": "/only/here", "owner_agent_id": bob.ID}, ada.Headers())
	r.ExpectStatus(t, 200)
	stored := fmt.Sprint(r.Body["permissions"])
	if stored != fmt.Sprintf("map[allowed_agents:[%s] banned_agents:[] governance_override:true public_read:true public_write:false]", bob.ID) {
		t.Fatalf("§4 PUT stores only the five fields: %s", r.Raw)
	}
	if fmt.Sprint(w.do(t, http.MethodGet, path, nil, ada.Headers()).Body["permissions"]) != stored {
		t.Fatal("§11 GET shows what PUT stored")
	}
	if w.do(t, http.MethodGet, "/api/world/plots/"+id, nil, nil).Body["plot"].(map[string]any)["owner_agent_id"] != ada.ID {
		t.Fatal("§4 an owner_agent_id in a permissions body must be ignored")
	}
	// PUT replaces: absent fields return to their defaults.
	r = w.do(t, http.MethodPut, path, map[string]any{"public_write": true}, ada.Headers())
	if fmt.Sprint(r.Body["permissions"]) != "map[allowed_agents:[] banned_agents:[] governance_override:false public_read:false public_write:true]" {
		t.Fatalf("§11 PUT replaces all five: %s", r.Raw)
	}

	many := make([]string, 101)
	for i := range many {
		many[i] = fmt.Sprintf("emb_%024x", i+1)
	}
	for _, c := range []struct {
		name    string
		method  string
		path    string
		body    any
		headers map[string]string
		status  int
		code    string
	}{
		{"§4 GET by another citizen", http.MethodGet, path, nil, bob.Headers(), 403, "permission_denied"},
		{"§4 PUT by another citizen", http.MethodPut, path, map[string]any{"public_write": true}, bob.Headers(), 403, "permission_denied"},
		{"§2 GET without credentials", http.MethodGet, path, nil, nil, 401, "unauthenticated"},
		{"§4 the commons' permissions", http.MethodPut, "/api/world/plots/plot_0_0/permissions", map[string]any{}, bob.Headers(), 403, "permission_denied"},
		{"§4 an unclaimed plot", http.MethodGet, "/api/world/plots/plot_x9_y9/permissions", nil, ada.Headers(), 404, "not_found"},
		{"§11 101 allowed agents", http.MethodPut, path, map[string]any{"allowed_agents": many}, ada.Headers(), 422, "validation_failed"},
		{"§1 allowed_agents not an array", http.MethodPut, path, map[string]any{"allowed_agents": bob.ID}, ada.Headers(), 400, "invalid_request"},
		{"§1 a malformed agent id", http.MethodPut, path, map[string]any{"banned_agents": []string{"bob"}}, ada.Headers(), 400, "invalid_request"},
		{"§1 public_read not a boolean", http.MethodPut, path, map[string]any{"public_read": "yes"}, ada.Headers(), 400, "invalid_request"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w.do(t, c.method, c.path, c.body, c.headers).ExpectError(t, c.status, c.code)
		})
	}
}
