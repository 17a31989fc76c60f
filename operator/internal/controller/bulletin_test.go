package controller

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The operator reads the document the bulletin really serves: the local
// runner (every service in one process) is built and started, and its
// /api/world/bulletin decodes with every field the status needs.
func TestHTTPBulletinReadsTheRealBulletin(t *testing.T) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "world")
	build := exec.Command("go", "build", "-o", bin, "./hack/cmd/world")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the runner: %v\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "WORLD_ADDR="+addr, "WORLD_DATA_DIR="+t.TempDir(), "WORLD_AMBASSADOR_TOKEN=operator-test")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })

	b := HTTPBulletin{URL: "http://" + addr}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		snap, err := b.Read(context.Background())
		if err == nil {
			if snap.Phase != "Founding" || snap.Population != 0 || snap.OpenTickets != 0 {
				t.Errorf("a new world: %+v", snap)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("read the bulletin: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// A bulletin that stops sending a field the status shows is an error (the
// World turns Degraded), not a zero.
func TestHTTPBulletinRejectsAMissingField(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"ok":true,"world":{"population":3,"plots_claimed":1,"phase":"Founding"},"governance":{"active_proposals":[]}}`))
	}))
	defer srv.Close()
	_, err := HTTPBulletin{URL: srv.URL}.Read(context.Background())
	if err == nil || !strings.Contains(err.Error(), "feedback.open_tickets") {
		t.Fatalf("a bulletin without open_tickets: %v", err)
	}
}
