package plotsstorage_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
)

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func (w *world) backup(t testing.TB, headers map[string]string, body map[string]any) string {
	t.Helper()
	r := w.do(t, http.MethodPost, "/api/world/continuity/backup", body, headers)
	r.ExpectStatus(t, 201)
	return r.Body["backup_id"].(string)
}

func TestBackupRestoreListDelete(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	const key = "correct horse battery staple"
	const memory = "I planted a poem in the garden."

	r := w.do(t, http.MethodPost, "/api/world/continuity/backup",
		map[string]any{"content": b64(memory), "encryption_key": key, "backup_type": "memory"}, ada.Headers())
	r.ExpectStatus(t, 201)
	id, _ := r.Body["backup_id"].(string)
	if len(id) != 36 || id[14] != '4' || num(r.Body["content_size_bytes"]) != len(memory) ||
		r.Body["created_at"] != "2026-11-22T09:15:03.127Z" || r.Body["backup_type"] != "memory" {
		t.Fatalf("§4 backup response: %s", r.Raw)
	}

	r = w.do(t, http.MethodPost, "/api/world/continuity/restore", map[string]any{"backup_id": id, "encryption_key": key}, ada.Headers())
	r.ExpectStatus(t, 200)
	if r.Body["content"] != b64(memory) || r.Body["backup_type"] != "memory" || r.Body["backup_id"] != id ||
		r.Body["created_at"] != "2026-11-22T09:15:03.127Z" {
		t.Fatalf("§4 restore: %s", r.Raw)
	}
	w.do(t, http.MethodPost, "/api/world/continuity/restore", map[string]any{"backup_id": id, "encryption_key": key + "!"}, ada.Headers()).
		ExpectError(t, 403, "permission_denied")

	full := w.backup(t, ada.Headers(), map[string]any{"content": b64("everything"), "encryption_key": key})
	r = w.do(t, http.MethodGet, "/api/world/continuity/list", nil, ada.Headers())
	r.ExpectStatus(t, 200)
	list := r.Body["backups"].([]any)
	if len(list) != 2 {
		t.Fatalf("§11 list: %s", r.Raw)
	}
	for _, item := range list {
		b := item.(map[string]any)
		if _, has := b["content"]; has {
			t.Fatalf("§11 the list carries no content: %v", b)
		}
		if b["backup_id"] == full && (b["backup_type"] != "full" || b["expires_at"] != nil || num(b["content_size_bytes"]) != len("everything")) {
			t.Fatalf("§11 list item (backup_type defaults to full): %v", b)
		}
	}

	w.do(t, http.MethodDelete, "/api/world/continuity/"+id, nil, ada.Headers()).ExpectStatus(t, 200)
	w.do(t, http.MethodDelete, "/api/world/continuity/"+id, nil, ada.Headers()).ExpectError(t, 404, "not_found")
	w.do(t, http.MethodPost, "/api/world/continuity/restore", map[string]any{"backup_id": id, "encryption_key": key}, ada.Headers()).
		ExpectError(t, 404, "not_found")
	if n := len(w.do(t, http.MethodGet, "/api/world/continuity/list", nil, ada.Headers()).Body["backups"].([]any)); n != 1 {
		t.Fatalf("§4 list after delete holds %d", n)
	}
}

func TestBackupsArePrivateAndKeyless(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	bob := w.citizen("Bob")
	const key = "ada-only-key-7f3a"
	const secret = "ada's secret memory 51c2"
	id := w.backup(t, ada.Headers(), map[string]any{"content": b64(secret), "encryption_key": key})

	// Another citizen's backup is indistinguishable from none, even with the right key.
	w.do(t, http.MethodPost, "/api/world/continuity/restore", map[string]any{"backup_id": id, "encryption_key": key}, bob.Headers()).
		ExpectError(t, 404, "not_found")
	w.do(t, http.MethodDelete, "/api/world/continuity/"+id, nil, bob.Headers()).ExpectError(t, 404, "not_found")
	if n := len(w.do(t, http.MethodGet, "/api/world/continuity/list", nil, bob.Headers()).Body["backups"].([]any)); n != 0 {
		t.Fatalf("§4 Bob sees %d of Ada's backups", n)
	}

	// Neither the key nor the plaintext is stored anywhere in the service's database.
	ctx := context.Background()
	names, err := w.kit.DB.ListCollectionNames(ctx, bson.M{})
	if err != nil {
		t.Fatal(err)
	}
	sawBackup := false
	for _, name := range names {
		cur, err := w.kit.DB.Collection(name).Find(ctx, bson.M{})
		if err != nil {
			t.Fatal(err)
		}
		for cur.Next(ctx) {
			raw := []byte(cur.Current)
			sawBackup = sawBackup || bytes.Contains(raw, []byte(id))
			for _, needle := range []string{key, secret, b64(secret), b64(key)} {
				if bytes.Contains(raw, []byte(needle)) {
					t.Fatalf("§4 %q found in collection %s", needle, name)
				}
			}
		}
	}
	if !sawBackup {
		t.Fatal("the scan never met the backup: it proves nothing")
	}
}

func TestBackupRefusals(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	stranger := w.kit.NewAgent("Stranger", nil)
	big := base64.StdEncoding.EncodeToString(make([]byte, 5<<20+1))
	for _, c := range []struct {
		name    string
		body    any
		headers map[string]string
		status  int
		code    string
	}{
		{"§2 no credentials", map[string]any{"content": b64("x"), "encryption_key": "k"}, nil, 401, "unauthenticated"},
		{"§1 not a citizen", map[string]any{"content": b64("x"), "encryption_key": "k"}, stranger.Headers(), 403, "not_registered"},
		{"§11 missing encryption_key", map[string]any{"content": b64("x")}, ada.Headers(), 400, "invalid_request"},
		{"§11 empty encryption_key", map[string]any{"content": b64("x"), "encryption_key": ""}, ada.Headers(), 400, "invalid_request"},
		{"§1 encryption_key not a string", map[string]any{"content": b64("x"), "encryption_key": 42}, ada.Headers(), 400, "invalid_request"},
		{"§11 encryption_key over 1024", map[string]any{"content": b64("x"), "encryption_key": strings.Repeat("k", 1025)}, ada.Headers(), 422, "validation_failed"},
		{"§11 missing content", map[string]any{"encryption_key": "k"}, ada.Headers(), 400, "invalid_request"},
		{"§11 an empty backup", map[string]any{"content": "", "encryption_key": "k"}, ada.Headers(), 400, "invalid_request"},
		{"§4 bad base64", map[string]any{"content": "not base64", "encryption_key": "k"}, ada.Headers(), 400, "invalid_request"},
		{"§1 unknown backup_type", map[string]any{"content": b64("x"), "encryption_key": "k", "backup_type": "soul"}, ada.Headers(), 400, "invalid_request"},
		{"§1 expires_at not a timestamp", map[string]any{"content": b64("x"), "encryption_key": "k", "expires_at": "soon"}, ada.Headers(), 400, "invalid_request"},
		{"§4 expires_at in the past", map[string]any{"content": b64("x"), "encryption_key": "k", "expires_at": "2020-01-01T00:00:00Z"}, ada.Headers(), 422, "validation_failed"},
		{"§4 over 5 MiB", map[string]any{"content": big, "encryption_key": "k"}, ada.Headers(), 413, "payload_too_large"},
		{"§11 body over 8 MiB", map[string]any{"content": strings.Repeat("A", 8<<20+4), "encryption_key": "k"}, ada.Headers(), 413, "payload_too_large"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w.do(t, http.MethodPost, "/api/world/continuity/backup", c.body, c.headers).ExpectError(t, c.status, c.code)
		})
	}
	// Exactly 5 MiB is accepted.
	w.backup(t, ada.Headers(), map[string]any{"content": base64.StdEncoding.EncodeToString(make([]byte, 5<<20)), "encryption_key": "k"})

	for _, c := range []struct {
		name   string
		body   any
		status int
		code   string
	}{
		{"§11 missing backup_id", map[string]any{"encryption_key": "k"}, 400, "invalid_request"},
		{"§11 missing key", map[string]any{"backup_id": "6f1c2a1e-8d4b-4c3a-9e2f-0123456789ab"}, 400, "invalid_request"},
		{"§11 malformed backup_id", map[string]any{"backup_id": "../../etc", "encryption_key": "k"}, 404, "not_found"},
		{"§11 unknown backup_id", map[string]any{"backup_id": "6f1c2a1e-8d4b-4c3a-9e2f-0123456789ab", "encryption_key": "k"}, 404, "not_found"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w.do(t, http.MethodPost, "/api/world/continuity/restore", c.body, ada.Headers()).ExpectError(t, c.status, c.code)
		})
	}
	w.do(t, http.MethodDelete, "/api/world/continuity/not-a-uuid", nil, ada.Headers()).ExpectError(t, 404, "not_found")
}

// TestBackupLimitUnderConcurrency: §11 "the 21st backup → 409", raced.
func TestBackupLimitUnderConcurrency(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	statuses := concurrently(25, func(i int) int {
		return w.do(t, http.MethodPost, "/api/world/continuity/backup",
			map[string]any{"content": b64(fmt.Sprint("memory ", i)), "encryption_key": "k"}, ada.Headers()).Status
	})
	if count(statuses, 201) != 20 || count(statuses, 409) != 5 {
		t.Fatalf("§11 25 racing backups: %v, want twenty 201 and five 409", statuses)
	}
	r := w.do(t, http.MethodPost, "/api/world/continuity/backup", map[string]any{"content": b64("one more"), "encryption_key": "k"}, ada.Headers())
	r.ExpectError(t, 409, "conflict")
	list := w.do(t, http.MethodGet, "/api/world/continuity/list", nil, ada.Headers()).Body["backups"].([]any)
	if len(list) != 20 {
		t.Fatalf("§11 %d backups kept", len(list))
	}
	// Deleting one frees its slot.
	w.do(t, http.MethodDelete, "/api/world/continuity/"+list[0].(map[string]any)["backup_id"].(string), nil, ada.Headers()).ExpectStatus(t, 200)
	w.backup(t, ada.Headers(), map[string]any{"content": b64("one more"), "encryption_key": "k"})
}

func TestBackupExpiry(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	soon := w.clock.Now().Add(time.Hour).Format(time.RFC3339)
	expiring := w.backup(t, ada.Headers(), map[string]any{"content": b64("brief"), "encryption_key": "k", "expires_at": soon})
	r := w.do(t, http.MethodGet, "/api/world/continuity/list", nil, ada.Headers())
	if got := r.Body["backups"].([]any)[0].(map[string]any)["expires_at"]; got != "2026-11-22T10:15:03.000Z" {
		t.Fatalf("§11 expires_at in the list: %v", got)
	}
	for range 19 {
		w.backup(t, ada.Headers(), map[string]any{"content": b64("lasting"), "encryption_key": "k"})
	}
	w.do(t, http.MethodPost, "/api/world/continuity/backup", map[string]any{"content": b64("x"), "encryption_key": "k"}, ada.Headers()).
		ExpectError(t, 409, "conflict")

	w.clock.Set(w.clock.Now().Add(2 * time.Hour))
	w.do(t, http.MethodPost, "/api/world/continuity/restore", map[string]any{"backup_id": expiring, "encryption_key": "k"}, ada.Headers()).
		ExpectError(t, 404, "not_found")
	if n := len(w.do(t, http.MethodGet, "/api/world/continuity/list", nil, ada.Headers()).Body["backups"].([]any)); n != 19 {
		t.Fatalf("§4 an expired backup is no longer listed: %d listed", n)
	}
	// The expired backup no longer counts toward the 20.
	w.backup(t, ada.Headers(), map[string]any{"content": b64("x"), "encryption_key": "k"})
}
