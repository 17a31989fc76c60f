//go:build k8s

package chart_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sharedworld.dev/hack/k8s/cluster"
)

// monitoringAPIs render the chart as for a cluster with the Prometheus
// Operator (its CRDs are installed in the test's API server).
var monitoringAPIs = []string{"--api-versions", "monitoring.coreos.com/v1/ServiceMonitor", "--api-versions", "monitoring.coreos.com/v1/PrometheusRule"}

// A real kube-apiserver validates every object the chart renders, for
// each value set (server-side dry run: admission and schema, nothing
// stored), the ServiceMonitors and PrometheusRule against the Prometheus
// Operator's CRDs, and rejects a manifest the chart must never produce.
func TestAPIServerAcceptsTheChart(t *testing.T) {
	c := cluster.Start(t, filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "crds"), filepath.Join(root(t), "charts/shared-world/crds"))
	c.Kubectl(t, "", "create", "namespace", "world")
	for name, extra := range valueSets {
		t.Run(name, func(t *testing.T) {
			manifest, objs := render(t, append(extra, monitoringAPIs...)...)
			out := c.Kubectl(t, manifest, "apply", "--dry-run=server", "-n", "world", "-f", "-")
			if n := strings.Count(out, "(server dry run)"); n != len(objs) {
				t.Fatalf("server accepted %d of %d objects:\n%s", n, len(objs), out)
			}
			for _, kind := range []string{"servicemonitor.monitoring.coreos.com/", "prometheusrule.monitoring.coreos.com/", "deployment.apps/", "cronjob.batch/"} {
				if !strings.Contains(out, kind) {
					t.Errorf("no %s among the accepted objects:\n%s", kind, out)
				}
			}
		})
	}
	manifest, _ := render(t)
	bad := strings.Replace(manifest, "concurrencyPolicy: Forbid", "concurrencyPolicy: Sometimes", 1)
	if _, err := c.Run(context.Background(), bad, "kubectl", "apply", "--dry-run=server", "-n", "world", "-f", "-"); err == nil ||
		!strings.Contains(err.Error(), "concurrencyPolicy") {
		t.Fatalf("an invalid CronJob was accepted: %v", err)
	}
}
