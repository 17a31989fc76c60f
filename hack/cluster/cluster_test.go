//go:build cluster

package cluster

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
)

var binaries Binaries

func TestMain(m *testing.M) {
	code := m.Run()
	binaries.Remove()
	os.Exit(code)
}

// clusterToken is the ambassador's token of the tests' worlds.
const clusterToken = "cluster-token-0123456789"

func startCluster(t *testing.T, values ...string) (*Cluster, error) {
	t.Helper()
	c, _, err := startLogged(t, 2, values...)
	return c, err
}

// startLogged starts make cluster's world with replicas of every
// Deployment, their logs in one file of the test's data directory, whose
// path it returns (for a dump on failure).
func startLogged(t *testing.T, replicas int, values ...string) (*Cluster, string, error) {
	t.Helper()
	binDir, err := binaries.Dir(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	log, err := os.Create(filepath.Join(data, "replicas.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	c, err := Start(context.Background(), Options{Root: root, BinDir: binDir, DataDir: data, AmbassadorToken: clusterToken,
		Replicas: replicas, Values: values, Log: log})
	return c, log.Name(), err
}

// A replica that exits while starting fails the start, and the error
// carries the replica's own last words.
func TestAReplicaThatExitsFailsTheStartWithItsLog(t *testing.T) {
	values := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(values, []byte("services:\n  tickets:\n    extraEnv:\n      - {name: WORLD_REQUEST_DEADLINE, value: 1ns}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := startCluster(t, values)
	if err == nil {
		c.Stop()
		t.Fatal("a cluster with a replica that cannot start started")
	}
	for _, want := range []string{"world-shared-world-tickets-0", "exited while starting", "WORLD_REQUEST_DEADLINE must be between"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
}

// Rolling every Deployment that rolls one replica at a time, while
// clients keep reading and writing every service, fails no request: a
// deleted replica stays in the endpoints a moment after its SIGTERM (as in
// Kubernetes) and what reaches it meanwhile is still answered. (The drain
// itself is pkg/platform's TestHostDrainsBeforeItStops: this front, like
// an Ingress controller, tries a refused connection on the next replica.)
// A killed replica is started again.
func TestRollingEveryDeploymentFailsNoRequest(t *testing.T) {
	c, err := startCluster(t)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	// reads and writes of every RollingUpdate service; the writes carry no
	// credentials (401), but are POSTs a proxy must not send twice
	type call struct{ method, path string }
	calls := []call{{"GET", "/api/world/directory"}, {"GET", "/api/world/plots"}, {"GET", "/api/world/tickets"},
		{"GET", "/api/world/governance/proposals"}, {"GET", "/api/world/commons"}, {"GET", "/openapi.json"},
		{"POST", "/api/world/register"}, {"POST", "/api/world/plots/claim"}, {"POST", "/api/world/tickets"},
		{"POST", "/api/world/governance/vote"}, {"POST", "/api/world/message"}}
	var sent, failed atomic.Int64
	var firstFailure atomic.Value
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Timeout: 10 * time.Second}
			for n := i; ctx.Err() == nil; n++ {
				call := calls[n%len(calls)]
				var body io.Reader
				if call.method == "POST" {
					body = strings.NewReader(`{}`)
				}
				req, _ := http.NewRequest(call.method, c.URL+call.path, body)
				resp, err := client.Do(req)
				sent.Add(1)
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode < 500 {
						continue
					}
					err = fmt.Errorf("%s %s: %d", call.method, call.path, resp.StatusCode)
				}
				failed.Add(1)
				firstFailure.CompareAndSwap(nil, err.Error())
			}
		}()
	}
	rolled := 0
	for _, d := range c.deployments {
		if d.spec.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
			continue // one pod by design: its rollout is a gap, not a roll
		}
		before := d.snapshot()
		if err := c.Roll(context.Background(), d.spec.Name); err != nil {
			t.Fatalf("roll %s: %v", d.spec.Name, err)
		}
		after := d.snapshot()
		if len(after) != len(before) || after[0] == before[0] || after[len(after)-1] == before[len(before)-1] {
			t.Fatalf("%s was not replaced: %v then %v", d.spec.Name, before, after)
		}
		rolled++
	}
	stop()
	wg.Wait()
	t.Logf("rolled %d Deployments; %d requests sent", rolled, sent.Load())
	if failed.Load() != 0 || sent.Load() < 100 {
		t.Fatalf("%d of %d requests failed during the rollout (first: %v)", failed.Load(), sent.Load(), firstFailure.Load())
	}

	// the CronJob's container runs to completion on demand (ctl run)
	if err := c.RunCronJob(context.Background(), "governance-check"); err != nil {
		t.Fatalf("the governance check: %v", err)
	}
	cj := c.crons[0]
	cj.mu.Lock()
	runs, failures := cj.Runs, cj.Failures
	cj.mu.Unlock()
	if runs < 1 || failures != 0 { // its hourly run may fall in the test too
		t.Fatalf("CronJob %s: %d runs, %d failed, want runs that succeeded", cj.spec.Name, runs, failures)
	}

	if err := c.Kill("docs", 0); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		rs, _ := c.Replicas("docs")
		if rs[0].Restarts() == 1 && rs[0].Ready() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the killed replica was not started again: restarts %d, ready %v", rs[0].Restarts(), rs[0].Ready())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
