//go:build !cluster

package world_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"sharedworld.dev/hack/world"
	"sharedworld.dev/pkg/testkit"
)

// start runs the world under test: the local runner (make run). Built
// with -tags cluster, the same tests run against the chart's world
// instead (start_cluster_test.go).
func start(t *testing.T, cfg world.Config) *world.World {
	t.Helper()
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	w, err := world.Start(context.Background(), cfg, log)
	if err != nil {
		t.Fatalf("start world: %v", err)
	}
	return w
}

func TestRunnerServesTheDocuments(t *testing.T) {
	w := start(t, world.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), AmbassadorToken: "docs-token-0123456789"})
	defer w.Stop(20 * time.Second)
	for path, ctype := range map[string]string{
		"/openapi.json": "application/json", "/docs": "text/html", "/agent.txt": "text/plain",
		"/safety": "text/html", "/founding": "text/html", "/.well-known/world.json": "application/json",
		"/metrics": "text/plain", "/readyz": "application/json",
	} {
		resp, err := testkit.ContractClient(t).Get(w.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), ctype) {
			t.Errorf("%s: %d %s %.300s", path, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
}
