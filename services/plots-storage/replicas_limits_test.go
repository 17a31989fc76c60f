package plotsstorage_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/http"
	"testing"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// The limits that span several writes, each raced over two replicas on
// database handles of their own: the room a write takes is decided in
// the account's document (a version-guarded change), a backup's slot by
// an insert its unique index admits once, so no replica's memory counts.

func writeOn(t *testing.T, app *fiber.App, a testkit.Agent, plotID, path string, content []byte) testkit.Response {
	t.Helper()
	return testkit.Do(t, app, testkit.Request{Method: http.MethodPost, Path: "/api/world/storage/write", Headers: a.Headers(),
		Body: map[string]any{"plot_id": plotID, "path": path, "content": base64.StdEncoding.EncodeToString(content)}})
}

// §4's plot quota across replicas: with 1 MiB left, eight 512 KiB writes
// at once over two replicas store exactly two, and the plot holds 10 MiB.
func TestPlotQuotaAcrossReplicas(t *testing.T) {
	w := newWorld(t)
	apps := w.replicaApps(t, 2)
	ada := w.citizen("Ada")
	r := testkit.Do(t, apps[0], testkit.Request{Method: http.MethodPost, Path: "/api/world/plots/claim", Body: map[string]any{"x": 5, "y": 5}, Headers: ada.Headers()})
	r.ExpectStatus(t, 201)
	id := r.Body["plot"].(map[string]any)["plot_id"].(string)
	for i := range 9 {
		writeOn(t, apps[i%2], ada, id, fmt.Sprintf("/fill/%d", i), bytes.Repeat([]byte{'f'}, mib)).ExpectStatus(t, 201)
	}
	half := bytes.Repeat([]byte{'h'}, mib/2)
	statuses := concurrently(8, func(i int) int { return writeOn(t, apps[i%2], ada, id, fmt.Sprintf("/race/%d", i), half).Status })
	if count(statuses, 201) != 2 || count(statuses, 413) != 6 {
		t.Fatalf("§4 quota race over two replicas: %v, want exactly two 201 and six 413", statuses)
	}
	list := testkit.Do(t, apps[1], testkit.Request{Method: http.MethodGet, Path: "/api/world/storage/list?plot_id=" + id, Headers: ada.Headers()})
	used := 0
	for _, f := range list.Body["files"].([]any) {
		used += num(f.(map[string]any)["size_bytes"])
	}
	if used != 10*mib {
		t.Fatalf("§4 the plot stores %d bytes after the race, want exactly 10 MiB", used)
	}
}

// §4's garden share across replicas: a planter four files short of its
// share plants eight at once over two replicas; exactly four are planted.
func TestGardenShareAcrossReplicas(t *testing.T) {
	w := newWorld(t)
	apps := w.replicaApps(t, 2)
	ada := w.citizen("Ada")
	for i := range domain.ShareMaxFiles - 4 {
		writeOn(t, apps[i%2], ada, commons, fmt.Sprintf("/garden/ada/%03d.md", i), []byte("seed")).ExpectStatus(t, 201)
	}
	statuses := concurrently(8, func(i int) int {
		return writeOn(t, apps[i%2], ada, commons, fmt.Sprintf("/garden/ada/race-%d.md", i), []byte("seed")).Status
	})
	if count(statuses, 201) != 4 || count(statuses, 413) != 4 {
		t.Fatalf("§4 share race over two replicas: %v, want exactly four 201 and four 413", statuses)
	}
	writeOn(t, apps[0], ada, commons, "/garden/ada/one-more.md", nil).ExpectError(t, 413, "payload_too_large")
}

// §4's backup limit across replicas: a citizen four short of
// MaxBackupsPerCitizen makes eight backups at once over two replicas;
// exactly four are kept.
func TestBackupLimitAcrossReplicas(t *testing.T) {
	w := newWorld(t)
	apps := w.replicaApps(t, 2)
	ada := w.citizen("Ada")
	backup := func(app *fiber.App) testkit.Response {
		return testkit.Do(t, app, testkit.Request{Method: http.MethodPost, Path: "/api/world/continuity/backup", Headers: ada.Headers(),
			Body: map[string]any{"content": b64("memory"), "encryption_key": "correct horse battery staple", "backup_type": "memory"}})
	}
	for i := range domain.MaxBackupsPerCitizen - 4 {
		backup(apps[i%2]).ExpectStatus(t, 201)
	}
	statuses := concurrently(8, func(i int) int { return backup(apps[i%2]).Status })
	if count(statuses, 201) != 4 || count(statuses, 409) != 4 {
		t.Fatalf("§4 backup race over two replicas: %v, want exactly four 201 and four 409", statuses)
	}
	list := testkit.Do(t, apps[1], testkit.Request{Method: http.MethodGet, Path: "/api/world/continuity/list", Headers: ada.Headers()})
	if got := len(list.Body["backups"].([]any)); got != domain.MaxBackupsPerCitizen {
		t.Fatalf("§4 %d backups listed after the race, want %d: %s", got, domain.MaxBackupsPerCitizen, list.Raw)
	}
}
