package bulletin_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"os"
	"sync/atomic"
	"testing"

	"go.mongodb.org/mongo-driver/event"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/embedded"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/testkit"
	identityv1 "sharedworld.dev/proto/identity/v1"
	"sharedworld.dev/services/bulletin"
)

// TestBulletinServing checks the served document's HTTP behaviour: ETag,
// 304 on If-None-Match, gzip, and the cache header (CONTRACT §6).
func TestBulletinServing(t *testing.T) {
	w := newWorld(t, bulletin.Options{})
	r := w.do(t, http.MethodGet, "/api/world/bulletin", nil, nil)
	r.ExpectStatus(t, 200)
	etag := r.Header["Etag"]
	if len(etag) < 3 || etag[0] != '"' || r.Header["Cache-Control"] != "public, max-age=5" ||
		r.Header["Content-Type"] != "application/json; charset=utf-8" || r.Body["ok"] != true {
		t.Fatalf("headers: %v", r.Header)
	}
	for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
		nm := w.do(t, http.MethodGet, "/api/world/bulletin", nil, map[string]string{"If-None-Match": inm})
		if nm.Status != 304 || len(nm.Raw) != 0 || nm.Header["Etag"] != etag {
			t.Fatalf("If-None-Match %s: status %d, %d bytes", inm, nm.Status, len(nm.Raw))
		}
	}
	if other := w.do(t, http.MethodGet, "/api/world/bulletin", nil, map[string]string{"If-None-Match": `"stale"`}); other.Status != 200 {
		t.Fatalf("a stale ETag must get the document, got %d", other.Status)
	}

	req, _ := http.NewRequest(http.MethodGet, "/api/world/bulletin", nil)
	req.Header.Set("Accept-Encoding", "br, gzip;q=0.8")
	resp, err := w.app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("Vary") != "Accept-Encoding" {
		t.Fatalf("gzip headers: %v", resp.Header)
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := io.ReadAll(zr)
	if !bytes.Equal(plain, r.Raw) {
		t.Fatal("the gzip body is not the same document")
	}
	req.Header.Set("Accept-Encoding", "gzip;q=0")
	resp2, _ := w.app.Test(req, -1)
	if resp2.Header.Get("Content-Encoding") != "" {
		t.Fatal("gzip;q=0 refuses gzip")
	}

	// A change gives a new ETag.
	w.kit.Publish(everyEventType()[0])
	w.waitRendered(t, "citizen shown", func(d map[string]any) bool {
		return d["world"].(map[string]any)["population"] == 1.0
	})
	if now := w.do(t, http.MethodGet, "/api/world/bulletin", nil, nil).Header["Etag"]; now == etag {
		t.Fatal("the ETag did not change with the document")
	}
}

// TestRestartResumesAndRebuildReplays: projections and offsets persist
// across a restart, the restarted bulletin is right before it consumes
// anything, and `bulletin rebuild` reproduces the same document from the
// topics alone.
func TestRestartResumesAndRebuildReplays(t *testing.T) {
	w := newWorld(t, bulletin.Options{})
	evs := everyEventType()
	w.kit.Publish(evs...)
	w.waitHandled(t, int64(len(evs)))
	before := w.waitRendered(t, "all rendered", everyEventRendered)
	beforeRaw := jsonOf(t, before)
	w.stop()

	// Restart: served right from the stored projections, before Run.
	w.build(t, bulletin.Options{})
	if got := jsonOf(t, w.bulletinDoc(t)); got != beforeRaw {
		t.Fatalf("after restart:\n got %s\nwant %s", got, beforeRaw)
	}
	// Run it: it resumes after the committed offsets, so only the new
	// event is applied.
	w.run(t)
	w.kit.Publish(ev(ada, &identityv1.CitizenUpdated{AgentId: ada, Name: "Ada L.", UpdatedAt: pb(sec(30)), Version: 2}, sec(30)))
	w.waitRendered(t, "rename applied", func(d map[string]any) bool {
		rc := d["community"].(map[string]any)["recent_citizens"].([]any)
		return rc[1].(map[string]any)["name"] == "Ada L."
	})
	w.waitHandled(t, 1) // shown before stored: the count follows the store
	if n := w.svc.Handled(); n != 1 {
		t.Fatalf("the restarted bulletin applied %d events; the offsets should have left only the new one", n)
	}
	after := jsonOf(t, w.bulletinDoc(t))

	// Rebuild from the topics alone, then start on the rebuilt database.
	w.stop()
	if n, err := bulletin.Rebuild(context.Background(), w.deps, bulletin.Options{}); err != nil || n != len(evs)+1 {
		t.Fatalf("rebuild applied %d events, err %v; want %d", n, err, len(evs)+1)
	}
	w.build(t, bulletin.Options{})
	if got := jsonOf(t, w.bulletinDoc(t)); got != after {
		t.Fatalf("after rebuild:\n got %s\nwant %s", got, after)
	}
}

// TestBulletinAndBoardRequestsNeverTouchMongoDB counts every command the
// bulletin's MongoDB client sends while the bulletin and the web board are
// being read: none (CONTRACT §6, §9).
func TestBulletinAndBoardRequestsNeverTouchMongoDB(t *testing.T) {
	dir, err := os.MkdirTemp("", "bulletin-monitor-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	ctx := context.Background()
	server, err := embedded.StartMongo(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(server.Stop)
	var commands atomic.Int64
	client, err := mongo.Connect(ctx, options.Client().ApplyURI(server.URI).SetMonitor(&event.CommandMonitor{
		Started: func(context.Context, *event.CommandStartedEvent) { commands.Add(1) },
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Disconnect(ctx) })

	w := newWorld(t, bulletin.Options{})
	w.stop()
	w.deps.DB = mongox.NewDB(client.Database("bulletin_monitored"), testkit.Mode())
	t.Cleanup(func() { _ = w.deps.DB.Drop(ctx) })
	w.start(t, bulletin.Options{})
	evs := everyEventType()
	w.kit.Publish(evs...)
	w.waitHandled(t, int64(len(evs)))
	w.waitRendered(t, "all rendered", everyEventRendered)
	w.stop() // no background work from here on

	before := commands.Load()
	for range 200 {
		w.do(t, http.MethodGet, "/api/world/bulletin", nil, nil).ExpectStatus(t, 200)
	}
	if n := commands.Load() - before; n != 0 {
		t.Fatalf("200 bulletin requests sent %d MongoDB commands", n)
	}
	before = commands.Load()
	for i := range 200 { // the first renders the page, the rest copy it
		headers := map[string]string{}
		if i%2 == 1 {
			headers["Accept-Encoding"] = "gzip"
		}
		w.do(t, http.MethodGet, "/", nil, headers).ExpectStatus(t, 200)
	}
	if n := commands.Load() - before; n != 0 {
		t.Fatalf("200 web board requests sent %d MongoDB commands", n)
	}
	if before == 0 {
		t.Fatal("the monitor saw no commands at all; it is not watching the bulletin's client")
	}
}
