//go:build k8s

package chart_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sharedworld.dev/hack/k8s/cluster"
)

// `helm install --wait` on a control plane that runs workloads
// (kube-apiserver, kube-controller-manager, kube-scheduler, kwok fake
// node): every Deployment rolls out, the CronJob is stored as specified, a
// Job started from it by hand is created and completes, and the World CRD
// the chart installed serves `kubectl get worlds`.
func TestHelmInstallRollsOut(t *testing.T) {
	c := cluster.Start(t, filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "crds"))
	c.StartControllers(t)
	ctx := context.Background()
	out, err := c.Run(ctx, "", "helm", "install", "world", filepath.Join(root(t), "charts/shared-world"),
		"--namespace", "world", "--create-namespace", "--wait", "--timeout", "4m", "--set", "identityProvider.development=true")
	if err != nil {
		status, _ := c.Run(ctx, "", "kubectl", "get", "deploy,rs,pods,nodes", "-A", "-o", "wide")
		events, _ := c.Run(ctx, "", "kubectl", "get", "events", "-A")
		t.Fatalf("helm install: %v\n%s\n%s\n%s", err, out, status, events)
	}
	if !strings.Contains(out, "STATUS: deployed") || !strings.Contains(out, "kubectl -n world get worlds") {
		t.Errorf("helm install output:\n%s", out)
	}

	var deps struct {
		Items []struct {
			Metadata struct{ Name string }  `json:"metadata"`
			Spec     struct{ Replicas int } `json:"spec"`
			Status   struct {
				AvailableReplicas int `json:"availableReplicas"`
				UpdatedReplicas   int `json:"updatedReplicas"`
			} `json:"status"`
		} `json:"items"`
	}
	decode(t, c.Kubectl(t, "", "-n", "world", "get", "deployments", "-o", "json"), &deps)
	if want := len(table(t)) + 2; len(deps.Items) != want {
		t.Errorf("%d Deployments, want %d: one per service of the table, the bulletin's aggregator and the operator", len(deps.Items), want)
	}
	for _, d := range deps.Items {
		if d.Status.AvailableReplicas != d.Spec.Replicas || d.Spec.Replicas < 1 {
			t.Errorf("%s: %d of %d available", d.Metadata.Name, d.Status.AvailableReplicas, d.Spec.Replicas)
		}
	}
	for _, kind := range []string{"servicemonitors", "prometheusrules", "networkpolicies", "poddisruptionbudgets", "horizontalpodautoscalers", "ingresses"} {
		if got := c.Kubectl(t, "", "-n", "world", "get", kind, "-o", "name"); strings.TrimSpace(got) == "" {
			t.Errorf("no %s installed", kind)
		}
	}

	// The CronJob as the API server stored it.
	var cj struct {
		Spec struct {
			Schedule                   string `json:"schedule"`
			ConcurrencyPolicy          string `json:"concurrencyPolicy"`
			StartingDeadlineSeconds    int    `json:"startingDeadlineSeconds"`
			SuccessfulJobsHistoryLimit int    `json:"successfulJobsHistoryLimit"`
			FailedJobsHistoryLimit     int    `json:"failedJobsHistoryLimit"`
			Suspend                    bool   `json:"suspend"`
		} `json:"spec"`
	}
	decode(t, c.Kubectl(t, "", "-n", "world", "get", "cronjob", "world-shared-world-governance-check", "-o", "json"), &cj)
	if s := cj.Spec; s.Schedule != "19 * * * *" || s.ConcurrencyPolicy != "Forbid" || s.StartingDeadlineSeconds != 600 ||
		s.SuccessfulJobsHistoryLimit != 3 || s.FailedJobsHistoryLimit != 5 || s.Suspend {
		t.Errorf("stored CronJob spec %+v", s)
	}

	// A run started by hand, as the runbook says.
	c.Kubectl(t, "", "-n", "world", "create", "job", "--from=cronjob/world-shared-world-governance-check", "governance-check-manual")
	cluster.Eventually(t, 90*time.Second, "the manual governance check Job completes", func() (bool, string) {
		out, err := c.Run(ctx, "", "kubectl", "-n", "world", "get", "job", "governance-check-manual",
			"-o", "jsonpath={.status.succeeded}/{.spec.template.spec.containers[0].args[0]}")
		return err == nil && out == "1/governance-check", out
	})

	// The chart installed the World CRD: the sample World is accepted and listed.
	c.Kubectl(t, "", "-n", "world", "apply", "-f", filepath.Join(root(t), "operator/config/samples/world.yaml"))
	if got := c.Kubectl(t, "", "-n", "world", "get", "worlds"); !strings.Contains(got, "POPULATION") || !strings.Contains(got, "Shared World") {
		t.Errorf("kubectl get worlds:\n%s", got)
	}
	t.Logf("installed:\n%s", c.Kubectl(t, "", "-n", "world", "get", "deploy,cronjob,job"))
}

func decode(t *testing.T, raw string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(raw), v); err != nil {
		t.Fatalf("decode %q: %v", raw, err)
	}
}
