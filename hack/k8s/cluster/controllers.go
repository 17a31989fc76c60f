package cluster

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// StartControllers adds kube-controller-manager, kube-scheduler and kwok
// to the cluster, and one fake node kwok keeps Ready: Deployments get
// pods that are scheduled and become Ready, CronJobs get Jobs, Jobs'
// pods complete. No container ever runs.
func (c *Cluster) StartControllers(t testing.TB) {
	t.Helper()
	for _, b := range []string{"kube-controller-manager", "kube-scheduler", "kwok", "kwok-stages.yaml"} {
		if _, err := os.Stat(filepath.Join(c.Tools, b)); err != nil {
			t.Fatalf("%s missing in %s: run hack/k8s-tools.sh %s", b, c.Tools, c.Tools)
		}
	}
	logs := t.TempDir()
	c.daemon(t, logs, "kube-controller-manager", "--kubeconfig="+c.Kubeconfig, "--leader-elect=false",
		"--controllers=*,-serviceaccount-token", "--use-service-account-credentials=false",
		"--authentication-kubeconfig="+c.Kubeconfig, "--authorization-kubeconfig="+c.Kubeconfig,
		"--bind-address=127.0.0.1", "--secure-port=0")
	c.daemon(t, logs, "kube-scheduler", "--kubeconfig="+c.Kubeconfig, "--leader-elect=false",
		"--authentication-kubeconfig="+c.Kubeconfig, "--authorization-kubeconfig="+c.Kubeconfig,
		"--bind-address=127.0.0.1", "--secure-port=0")
	c.daemon(t, logs, "kwok", "--kubeconfig="+c.Kubeconfig, "--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
		"--config="+filepath.Join(c.Tools, "kwok-stages.yaml"), "--server-address=127.0.0.1:0")
	c.Kubectl(t, fakeNode, "apply", "-f", "-")
	Eventually(t, 60*time.Second, "the fake node is Ready", func() (bool, string) {
		out, err := c.Run(context.Background(), "", "kubectl", "get", "node", "kwok-node-0",
			"-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
		return err == nil && out == "True", out
	})
}

// daemon runs one long-lived tool until the test ends, its log in dir
// (printed when the test fails).
func (c *Cluster) daemon(t testing.TB, dir, tool string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	logPath := filepath.Join(dir, tool+".log")
	log, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, filepath.Join(c.Tools, tool), args...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		log.Close()
		if t.Failed() {
			raw, _ := os.ReadFile(logPath)
			lines := strings.Split(string(raw), "\n")
			if len(lines) > 40 {
				lines = lines[len(lines)-40:]
			}
			t.Logf("%s (last lines):\n%s", tool, strings.Join(lines, "\n"))
		}
	})
}

const fakeNode = `apiVersion: v1
kind: Node
metadata:
  name: kwok-node-0
  annotations:
    node.alpha.kubernetes.io/ttl: "0"
    kwok.x-k8s.io/node: fake
  labels:
    kubernetes.io/hostname: kwok-node-0
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
    type: kwok
spec: {}
status:
  allocatable: {cpu: "32", memory: 256Gi, pods: "110"}
  capacity: {cpu: "32", memory: 256Gi, pods: "110"}
`
