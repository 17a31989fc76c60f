//go:build cluster

package world_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"sharedworld.dev/hack/cluster"
	"sharedworld.dev/hack/world"
)

// clusterWorld is the chart's world (make cluster) behind the runner's
// face, so that the runner's end-to-end tests run against it unchanged.
type clusterWorld struct {
	URL   string
	Clock interface{ Now() time.Time }
	c     *cluster.Cluster
}

func (w *clusterWorld) Stop(time.Duration) error { w.c.Stop(); return nil }

var binaries cluster.Binaries

func TestMain(m *testing.M) {
	code := m.Run()
	binaries.Remove()
	os.Exit(code)
}

// start runs the world under test as the chart's Deployments, REPLICAS
// replicas each (default 2), on the configuration's data directory, token,
// clock and rate limits.
func start(t *testing.T, cfg world.Config) *clusterWorld {
	t.Helper()
	binDir, err := binaries.Dir(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	replicas := 2
	if n, err := strconv.Atoi(os.Getenv("REPLICAS")); err == nil {
		replicas = n
	}
	var limits []string
	for k, v := range cfg.RateLimits {
		limits = append(limits, k+"="+v)
	}
	logFile, err := os.OpenFile(filepath.Join(cfg.DataDir, "replicas.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logFile.Close() })
	root, _ := filepath.Abs("../..")
	c, err := cluster.Start(context.Background(), cluster.Options{Root: root, BinDir: binDir, DataDir: cfg.DataDir,
		Addr: cfg.Addr, AmbassadorToken: cfg.AmbassadorToken, DevClock: cfg.DevClock, RateLimits: strings.Join(limits, ","),
		Replicas: replicas, Log: logFile})
	if err != nil {
		t.Fatalf("start the cluster: %v", err)
	}
	return &clusterWorld{URL: c.URL, Clock: c, c: c}
}
