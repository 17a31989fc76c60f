//go:build k8s

package chart_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sharedworld.dev/hack/k8s/cluster"
)

// helm uninstall with a World the operator left holding its finalizer and
// no operator to honour it (here none ever runs: kwok runs no container).
// Helm creates the pre-delete hook Job; the test plays the kubelet for it,
// running the operator binary with the Job's own arguments; then the
// namespace can be deleted. Without the hook the World's finalizer would
// hold the namespace in Terminating forever.
func TestUninstallDoesNotStrandTheNamespace(t *testing.T) {
	c := cluster.Start(t, filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "crds"))
	c.StartControllers(t)
	ctx := context.Background()
	operator := filepath.Join(t.TempDir(), "operator")
	build := exec.Command("go", "build", "-o", operator, "sharedworld.dev/operator/cmd")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the operator: %v\n%s", err, out)
	}
	if out, err := c.Run(ctx, "", "helm", "install", "world", filepath.Join(root(t), "charts/shared-world"),
		"--namespace", "world", "--create-namespace", "--set", "identityProvider.development=true"); err != nil {
		t.Fatalf("helm install: %v\n%s", err, out)
	}
	c.Kubectl(t, `apiVersion: sharedworld.dev/v1alpha1
kind: World
metadata: {name: world, namespace: world, finalizers: [sharedworld.dev/settings]}
spec: {name: Shared World}
`, "apply", "-f", "-")

	uninstalled := make(chan string, 1)
	go func() {
		out, err := c.Run(ctx, "", "helm", "uninstall", "world", "--namespace", "world", "--wait", "--timeout", "3m")
		if err != nil {
			out += err.Error()
		}
		uninstalled <- out
	}()
	var job struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Args []string `json:"args"`
					} `json:"containers"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	cluster.Eventually(t, 60*time.Second, "helm creates the pre-delete hook Job", func() (bool, string) {
		out, err := c.Run(ctx, "", "kubectl", "-n", "world", "get", "job", "world-shared-world-release-worlds", "-o", "json")
		if err != nil {
			return false, err.Error()
		}
		return json.Unmarshal([]byte(out), &job) == nil && len(job.Spec.Template.Spec.Containers) == 1, out
	})
	run := exec.CommandContext(ctx, operator, job.Spec.Template.Spec.Containers[0].Args...)
	run.Env = append(os.Environ(), "KUBECONFIG="+c.Kubeconfig)
	var out bytes.Buffer
	run.Stdout, run.Stderr = &out, &out
	if err := run.Run(); err != nil || !strings.Contains(out.String(), "removed their finalizers") {
		t.Fatalf("the hook %v: %v\n%s", job.Spec.Template.Spec.Containers[0].Args, err, out.String())
	}
	select {
	case res := <-uninstalled:
		if !strings.Contains(res, "uninstalled") {
			t.Fatalf("helm uninstall: %s", res)
		}
	case <-time.After(4 * time.Minute):
		t.Fatal("helm uninstall did not return")
	}

	c.Kubectl(t, "", "delete", "namespace", "world", "--wait=false")
	cluster.Eventually(t, 2*time.Minute, "the namespace is deleted", func() (bool, string) {
		out, err := c.Run(ctx, "", "kubectl", "get", "namespace", "world", "-o", "jsonpath={.status}")
		return err != nil && strings.Contains(err.Error(), "NotFound"), out
	})
}
