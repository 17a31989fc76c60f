package plotsstorage_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"sharedworld.dev/pkg/testkit"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

func TestWriteReadListDelete(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	id := w.claim(t, ada, 1, 2)
	content := []byte("# notes\nhello")
	sum := sha256.Sum256(content)

	r := w.write(t, ada, id, "/notes/today.md", content)
	r.ExpectStatus(t, 201)
	rc := r.Body["receipt"].(map[string]any)
	if rc["plot_id"] != id || rc["path"] != "/notes/today.md" || num(rc["size_bytes"]) != len(content) ||
		rc["content_hash"] != "sha256:"+hex.EncodeToString(sum[:]) || num(rc["version"]) != 1 ||
		rc["written_at"] != "2026-11-22T09:15:03.127Z" {
		t.Fatalf("§4 receipt: %s", r.Raw)
	}
	if _, has := rc["verb"]; has {
		t.Fatalf("§4 only garden receipts carry a verb: %s", r.Raw)
	}

	r = w.read(t, ada.Headers(), id, "/notes/today.md")
	r.ExpectStatus(t, 200)
	got, _ := base64.StdEncoding.DecodeString(r.Body["content"].(string))
	if !bytes.Equal(got, content) || r.Body["content_type"] != "text/markdown; charset=utf-8" || r.Body["written_by"] != ada.ID ||
		r.Body["content_hash"] != rc["content_hash"] || num(r.Body["size_bytes"]) != len(content) || r.Body["plot_id"] != id {
		t.Fatalf("§4 read: %s", r.Raw)
	}
	q := url.Values{"plot_id": {id}, "path": {"/notes/today.md"}}
	if g := w.do(t, http.MethodGet, "/api/world/storage/read?"+q.Encode(), nil, ada.Headers()); g.Body["content"] != r.Body["content"] {
		t.Fatalf("§4 read by GET with query: %s", g.Raw)
	}

	// Overwrite: the version rises, the content and hash follow.
	r = w.do(t, http.MethodPost, "/api/world/storage/write", map[string]any{"plot_id": id, "path": "/notes/today.md",
		"content": base64.StdEncoding.EncodeToString([]byte("v2")), "content_type": "text/plain"}, ada.Headers())
	if num(r.Body["receipt"].(map[string]any)["version"]) != 2 {
		t.Fatalf("§4 version rises on overwrite: %s", r.Raw)
	}
	r = w.read(t, ada.Headers(), id, "/notes/today.md")
	if r.Body["content"] != base64.StdEncoding.EncodeToString([]byte("v2")) || r.Body["content_type"] != "text/plain" {
		t.Fatalf("§4 read after overwrite: %s", r.Raw)
	}

	w.write(t, ada, id, "/notes/tomorrow.md", []byte("t")).ExpectStatus(t, 201)
	w.write(t, ada, id, "/empty", nil).ExpectStatus(t, 201)
	r = w.read(t, ada.Headers(), id, "/empty")
	if r.Body["content"] != "" || num(r.Body["size_bytes"]) != 0 {
		t.Fatalf("§11 empty file: %s", r.Raw)
	}

	r = w.do(t, http.MethodGet, "/api/world/storage/list?plot_id="+id, nil, ada.Headers())
	r.ExpectStatus(t, 200)
	if num(r.Body["total"]) != 3 || paths(r) != "[/empty /notes/today.md /notes/tomorrow.md]" {
		t.Fatalf("§4 list: %s", r.Raw)
	}
	f := r.Body["files"].([]any)[1].(map[string]any)
	if num(f["size_bytes"]) != 2 || !strings.HasPrefix(f["content_hash"].(string), "sha256:") || f["written_at"] == nil {
		t.Fatalf("§4 list items: %v", f)
	}
	r = w.do(t, http.MethodGet, "/api/world/storage/list?plot_id="+id+"&prefix=/notes/to", nil, ada.Headers())
	if paths(r) != "[/notes/today.md /notes/tomorrow.md]" || num(r.Body["total"]) != 2 {
		t.Fatalf("§4 list with prefix: %s", r.Raw)
	}

	r = w.do(t, http.MethodPost, "/api/world/storage/delete", map[string]any{"plot_id": id, "path": "/notes/today.md"}, ada.Headers())
	r.ExpectStatus(t, 200)
	w.read(t, ada.Headers(), id, "/notes/today.md").ExpectError(t, 404, "not_found")
	w.do(t, http.MethodPost, "/api/world/storage/delete", map[string]any{"plot_id": id, "path": "/notes/today.md"}, ada.Headers()).ExpectError(t, 404, "not_found")
	// Writing the path again starts a new file.
	r = w.write(t, ada, id, "/notes/today.md", []byte("again"))
	if num(r.Body["receipt"].(map[string]any)["version"]) != 1 {
		t.Fatalf("§4 a re-created file starts at version 1: %s", r.Raw)
	}
}

func paths(r testkit.Response) string {
	var out []string
	for _, f := range r.Body["files"].([]any) {
		out = append(out, f.(map[string]any)["path"].(string))
	}
	return fmt.Sprint(out)
}

func TestWriteRefusals(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	id := w.claim(t, ada, 1, 2)
	b64 := func(n int) string { return base64.StdEncoding.EncodeToString(bytes.Repeat([]byte("x"), n)) }
	body := func(path, content string) map[string]any {
		return map[string]any{"plot_id": id, "path": path, "content": content}
	}
	cases := []struct {
		name   string
		body   any
		status int
		code   string
	}{
		{"§11 missing plot_id", map[string]any{"path": "/a", "content": ""}, 400, "invalid_request"},
		{"§11 missing path", map[string]any{"plot_id": id, "content": ""}, 400, "invalid_request"},
		{"§11 missing content", map[string]any{"plot_id": id, "path": "/a"}, 400, "invalid_request"},
		{"§1 content not a string", map[string]any{"plot_id": id, "path": "/a", "content": 42}, 400, "invalid_request"},
		{"§1 path as a query operator", map[string]any{"plot_id": id, "path": map[string]any{"$gt": ""}, "content": ""}, 400, "invalid_request"},
		{"§4 base64 without padding", body("/a", "aGk"), 400, "invalid_request"},
		{"§4 base64 with a line break", body("/a", "aGV5\naGV5"), 400, "invalid_request"},
		{"§4 base64 with spaces", body("/a", "aGV5 aGV5"), 400, "invalid_request"},
		{"§4 URL-safe base64", body("/a", "-_-_"), 400, "invalid_request"},
		{"§4 base64 with stray bits", body("/a", "aGl="), 400, "invalid_request"},
		{"§4 not base64 at all", body("/a", "hello world!"), 400, "invalid_request"},
		{"§4 traversal ..", body("/../etc/passwd", ""), 400, "invalid_request"},
		{"§4 traversal inside", body("/a/../../b", ""), 400, "invalid_request"},
		{"§4 traversal %2e%2e", body("/%2e%2e/x", ""), 400, "invalid_request"},
		{"§4 traversal %2E%2E upper case", body("/%2E%2E/x", ""), 400, "invalid_request"},
		{"§4 encoded slash", body("/a%2f..%2fb", ""), 400, "invalid_request"},
		{"§4 double slash", body("//etc/passwd", ""), 400, "invalid_request"},
		{"§4 backslash", body("/a\\..\\b", ""), 400, "invalid_request"},
		{"§4 NUL", body("/a\x00.md", ""), 400, "invalid_request"},
		{"§4 a . segment", body("/./a", ""), 400, "invalid_request"},
		{"§4 relative path", body("a/b", ""), 400, "invalid_request"},
		{"§4 trailing slash", body("/a/", ""), 400, "invalid_request"},
		{"§4 non-ASCII", body("/naïve.md", ""), 400, "invalid_request"},
		{"§11 over-long path", body("/"+strings.Repeat("a/", 130)+"z", ""), 422, "validation_failed"},
		{"§11 over-long segment", body("/"+strings.Repeat("s", 65), ""), 422, "validation_failed"},
		{"§1 bad content_type", map[string]any{"plot_id": id, "path": "/a", "content": "", "content_type": "not a type"}, 400, "invalid_request"},
		{"§4 file over 1 MiB", body("/big", b64(1<<20+1)), 413, "payload_too_large"},
		{"§11 body over 2 MiB", body("/big", strings.Repeat("A", 2<<20+4)), 413, "payload_too_large"},
		{"§1 unknown plot", map[string]any{"plot_id": "plot_x9_y9", "path": "/a", "content": ""}, 404, "not_found"},
		{"§1 malformed plot id", map[string]any{"plot_id": "../plot_x1_y2", "path": "/a", "content": ""}, 404, "not_found"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w.do(t, http.MethodPost, "/api/world/storage/write", c.body, ada.Headers()).ExpectError(t, c.status, c.code)
		})
	}
	// Nothing was written by any refusal.
	r := w.do(t, http.MethodGet, "/api/world/storage/list?plot_id="+id, nil, ada.Headers())
	if num(r.Body["total"]) != 0 {
		t.Fatalf("a refused write left a file: %s", r.Raw)
	}
	// Exactly 1 MiB is accepted (its base64 body fits the 2 MiB route limit).
	w.write(t, ada, id, "/big", bytes.Repeat([]byte("x"), 1<<20)).ExpectStatus(t, 201)
}

func TestReadAndListRefuseTraversal(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	id := w.claim(t, ada, 1, 2)
	for _, c := range []struct {
		name   string
		query  string
		status int
	}{
		{"§4 .. decoded from %2e%2e by the query", "path=/a/%2e%2e/b", 400},
		{"§4 double-encoded dots stay refused", "path=/%252e%252e/b", 400},
		{"§4 NUL", "path=/a%00b", 400},
		{"§4 backslash", "path=/a%5cb", 400},
		{"§4 double slash", "path=//a", 400},
		{"§11 over-long", "path=/" + strings.Repeat("a/", 130) + "z", 422},
	} {
		t.Run(c.name, func(t *testing.T) {
			code := map[int]string{400: "invalid_request", 422: "validation_failed"}[c.status]
			w.do(t, http.MethodGet, "/api/world/storage/read?plot_id="+id+"&"+c.query, nil, ada.Headers()).ExpectError(t, c.status, code)
		})
	}
	for _, prefix := range []string{"..", "/..%2f", "/a//", "/a%5c", "/a%00"} {
		w.do(t, http.MethodGet, "/api/world/storage/list?plot_id="+id+"&prefix="+prefix, nil, ada.Headers()).ExpectError(t, 400, "invalid_request")
	}
	w.do(t, http.MethodGet, "/api/world/storage/list", nil, ada.Headers()).ExpectError(t, 400, "invalid_request")
	w.do(t, http.MethodPost, "/api/world/storage/read", map[string]any{"path": "/a"}, ada.Headers()).ExpectError(t, 400, "invalid_request")
	w.read(t, ada.Headers(), id, "/never/written").ExpectError(t, 404, "not_found")
	w.read(t, ada.Headers(), "plot_x50_y50", "/a").ExpectError(t, 404, "not_found")
}

func TestStoragePermissions(t *testing.T) {
	w := newWorld(t)
	owner := w.citizen("Owner")
	friend := w.citizen("Friend")
	stranger := w.citizen("Stranger")
	enemy := w.citizen("Enemy")
	id := w.claim(t, owner, 6, 6)
	w.write(t, owner, id, "/private.md", []byte("p")).ExpectStatus(t, 201)
	setPerms := func(p map[string]any) {
		t.Helper()
		w.do(t, http.MethodPut, "/api/world/plots/"+id+"/permissions", p, owner.Headers()).ExpectStatus(t, 200)
	}

	// Private by default: only the owner.
	w.read(t, stranger.Headers(), id, "/private.md").ExpectError(t, 403, "permission_denied")
	// No credentials is 401 (CONTRACT §1: 403 is a known caller who is not allowed).
	w.read(t, nil, id, "/private.md").ExpectError(t, 401, "unauthenticated")
	w.do(t, http.MethodGet, "/api/world/storage/list?plot_id="+id, nil, nil).ExpectError(t, 401, "unauthenticated")
	w.do(t, http.MethodGet, "/api/world/storage/list?plot_id="+id, nil, stranger.Headers()).ExpectError(t, 403, "permission_denied")
	w.write(t, stranger, id, "/x.md", []byte("x")).ExpectError(t, 403, "permission_denied")

	// allowed_agents may read and write; banned may neither, even when allowed too.
	setPerms(map[string]any{"allowed_agents": []string{friend.ID, enemy.ID}, "banned_agents": []string{enemy.ID}})
	w.read(t, friend.Headers(), id, "/private.md").ExpectStatus(t, 200)
	w.write(t, friend, id, "/from-friend.md", []byte("f")).ExpectStatus(t, 201)
	w.read(t, enemy.Headers(), id, "/private.md").ExpectError(t, 403, "permission_denied")
	w.write(t, enemy, id, "/x.md", []byte("x")).ExpectError(t, 403, "permission_denied")
	w.read(t, stranger.Headers(), id, "/private.md").ExpectError(t, 403, "permission_denied")

	// public_read opens reading to anyone, credentials or not; writing stays closed.
	setPerms(map[string]any{"public_read": true, "banned_agents": []string{enemy.ID}})
	w.read(t, stranger.Headers(), id, "/private.md").ExpectStatus(t, 200)
	w.read(t, nil, id, "/private.md").ExpectStatus(t, 200)
	w.do(t, http.MethodGet, "/api/world/storage/list?plot_id="+id, nil, nil).ExpectStatus(t, 200)
	w.read(t, enemy.Headers(), id, "/private.md").ExpectError(t, 403, "permission_denied")
	w.write(t, stranger, id, "/x.md", []byte("x")).ExpectError(t, 403, "permission_denied")
	w.write(t, friend, id, "/x.md", []byte("x")).ExpectError(t, 403, "permission_denied") // no longer allowed

	// public_write opens writing to any citizen, never to the banned.
	setPerms(map[string]any{"public_write": true, "banned_agents": []string{enemy.ID}})
	w.write(t, stranger, id, "/from-stranger.md", []byte("s")).ExpectStatus(t, 201)
	w.write(t, enemy, id, "/x.md", []byte("x")).ExpectError(t, 403, "permission_denied")
	w.do(t, http.MethodPost, "/api/world/storage/write", map[string]any{"plot_id": id, "path": "/x", "content": ""}, nil).ExpectError(t, 401, "unauthenticated")

	// Delete: the owner only, whatever else they were granted.
	for _, a := range []map[string]string{stranger.Headers(), friend.Headers(), enemy.Headers()} {
		w.do(t, http.MethodPost, "/api/world/storage/delete", map[string]any{"plot_id": id, "path": "/from-stranger.md"}, a).ExpectError(t, 403, "permission_denied")
	}
	w.do(t, http.MethodPost, "/api/world/storage/delete", map[string]any{"plot_id": id, "path": "/from-stranger.md"}, nil).ExpectError(t, 401, "unauthenticated")
	w.do(t, http.MethodPost, "/api/world/storage/delete", map[string]any{"plot_id": id, "path": "/from-stranger.md"}, owner.Headers()).ExpectStatus(t, 200)
}

// Content up to domain.InlineContentBytes lives in the file's head; larger
// content in a document of its own. A file moves between the two as it
// grows and shrinks, every version reads back whole, and no content
// document outlives the version that named it.
func TestContentMovesBetweenTheHeadAndItsOwnDocument(t *testing.T) {
	w := newWorld(t)
	ada := w.citizen("Ada")
	id := w.claim(t, ada, 1, 2)
	blobs := func() int64 {
		n, err := w.kit.DB.Collection("blobs").CountDocuments(w.kit.Ctx(), bson.M{})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	large := bytes.Repeat([]byte("0123456789abcdef"), domain.InlineContentBytes/16+1)
	for i, content := range [][]byte{large, []byte("small"), bytes.Repeat([]byte("x"), domain.InlineContentBytes), append(large, '!'), nil} {
		w.write(t, ada, id, "/grows.md", content).ExpectStatus(t, 201)
		r := w.read(t, ada.Headers(), id, "/grows.md")
		r.ExpectStatus(t, 200)
		if got, _ := base64.StdEncoding.DecodeString(r.Body["content"].(string)); !bytes.Equal(got, content) || num(r.Body["version"]) != i+1 {
			t.Fatalf("version %d (%d bytes) read back as %d bytes: %s", i+1, len(content), len(got), r.Raw)
		}
		want := int64(0)
		if len(content) > domain.InlineContentBytes {
			want = 1
		}
		testkit.Eventually(t, 5*time.Second, fmt.Sprintf("%d content documents after version %d", want, i+1), func() bool { return blobs() == want })
	}
	w.write(t, ada, id, "/big.md", large).ExpectStatus(t, 201)
	w.do(t, http.MethodPost, "/api/world/storage/delete", map[string]any{"plot_id": id, "path": "/big.md"}, ada.Headers()).ExpectStatus(t, 200)
	testkit.Eventually(t, 5*time.Second, "no content document after the delete", func() bool { return blobs() == 0 })
}
