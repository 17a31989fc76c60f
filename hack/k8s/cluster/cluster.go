// Package cluster starts a real Kubernetes control plane for tests: etcd
// and kube-apiserver through controller-runtime's envtest and, when a test
// needs workloads to run, kube-controller-manager, kube-scheduler and kwok
// with a fake node, so Deployments roll out and CronJobs create Jobs
// without a container runtime. The binaries come from hack/k8s-tools.sh
// (`make test-k8s` runs it); their directory is $KUBEBUILDER_ASSETS.
package cluster

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Cluster is a running control plane and the tools that talk to it.
type Cluster struct {
	Env        *envtest.Environment
	Tools      string // directory of the binaries
	Kubeconfig string // an admin's kubeconfig file
}

// Tools is the directory of the test binaries; a missing one fails the
// test with the command that provides it.
func Tools(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("KUBEBUILDER_ASSETS")
	if dir == "" {
		t.Fatal("KUBEBUILDER_ASSETS is not set: run `make test-k8s` (hack/k8s-tools.sh builds the binaries)")
	}
	for _, b := range []string{"etcd", "kube-apiserver", "kubectl", "helm"} {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			t.Fatalf("%s missing in %s: run hack/k8s-tools.sh %s", b, dir, dir)
		}
	}
	return dir
}

// Start starts etcd and kube-apiserver with the CRDs of crdDirs installed.
func Start(t testing.TB, crdDirs ...string) *Cluster {
	t.Helper()
	tools := Tools(t)
	env := &envtest.Environment{BinaryAssetsDirectory: tools, CRDDirectoryPaths: crdDirs, ErrorIfCRDPathMissing: true}
	if _, err := env.Start(); err != nil {
		t.Fatalf("start the API server: %v", err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Logf("stop the API server: %v", err)
		}
	})
	user, err := env.AddUser(envtest.User{Name: "admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := user.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	return &Cluster{Env: env, Tools: tools, Kubeconfig: path}
}

// Run runs one of the tools against the cluster with stdin, returning its
// standard output, and its standard error in the error.
func (c *Cluster) Run(ctx context.Context, stdin, tool string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(c.Tools, tool), args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.Kubeconfig, "HELM_CACHE_HOME="+filepath.Dir(c.Kubeconfig)+"/helm",
		"HELM_CONFIG_HOME="+filepath.Dir(c.Kubeconfig)+"/helm", "HELM_DATA_HOME="+filepath.Dir(c.Kubeconfig)+"/helm")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%s %s: %w: %s", tool, strings.Join(args, " "), err, errOut.String())
	}
	return out.String(), nil
}

// Kubectl runs kubectl, failing the test on an error.
func (c *Cluster) Kubectl(t testing.TB, stdin string, args ...string) string {
	t.Helper()
	out, err := c.Run(context.Background(), stdin, "kubectl", args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Eventually polls cond until it holds or the deadline passes.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	last := ""
	for time.Now().Before(deadline) {
		ok, state := cond()
		if ok {
			return
		}
		last = state
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s: not within %s; last: %s", what, timeout, last)
}
