package plotsstorage_test

import (
	"net/http"
	"testing"
	"time"

	"sharedworld.dev/pkg/testkit"
)

func TestTombstonedCitizenCannotAct(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	id := w.claim(t, ada, 1, 1) // plots-storage now knows Ada as a living citizen
	w.kit.Tombstone(ada)
	testkit.Eventually(t, 20*time.Second, "citizen.tombstoned reaches plots-storage's projection", func() bool {
		return w.write(t, ada, id, "/a.md", nil).Status == 403
	})
	w.write(t, ada, id, "/a.md", nil).ExpectError(t, 403, "permission_denied")
	w.do(t, http.MethodPost, "/api/world/plots/abandon", nil, ada.Headers()).ExpectError(t, 403, "permission_denied")
	w.read(t, ada.Headers(), id, "/a.md").ExpectError(t, 403, "permission_denied")
}

func TestUnknownPathsAndCredentials(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	w.do(t, http.MethodGet, "/api/world/storage/nothing", nil, nil).ExpectError(t, 404, "not_found")
	w.do(t, http.MethodPut, "/api/world/storage/write", map[string]any{}, ada.Headers()).ExpectError(t, 405, "method_not_allowed")
	w.do(t, http.MethodGet, "/api/world/storage/list?plot_id=plot_x40_y40", nil, nil).ExpectError(t, 404, "not_found")

	forged := ada.Headers()
	last := "0"
	if ada.ID[len(ada.ID)-1] == '0' {
		last = "1"
	}
	forged["X-Agent-Id"] = ada.ID[:len(ada.ID)-1] + last // one hex digit off
	w.do(t, http.MethodPost, "/api/world/plots/claim", map[string]any{"x": 1, "y": 1}, forged).ExpectError(t, 401, "unauthenticated")

	w.kit.Provider.Revoke(ada.ID)
	if err := w.deps.Auth.Verifier.RefreshRevocations(w.kit.Ctx()); err != nil {
		t.Fatal(err)
	}
	w.do(t, http.MethodPost, "/api/world/plots/claim", map[string]any{"x": 1, "y": 1}, ada.Headers()).ExpectError(t, 401, "certificate_revoked")
	w.read(t, ada.Headers(), "plot_0_0", "/garden/index.md").ExpectError(t, 401, "certificate_revoked")
}
