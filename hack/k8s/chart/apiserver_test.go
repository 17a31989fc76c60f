//go:build k8s

package chart_test

import (
	"context"
	"strings"
	"testing"

	"sharedworld.dev/hack/k8s/cluster"
)

// A real kube-apiserver validates every object the chart renders, for
// each value set (server-side dry run: admission and schema, nothing
// stored), and rejects a manifest the chart must never produce.
func TestAPIServerAcceptsTheChart(t *testing.T) {
	c := cluster.Start(t)
	c.Kubectl(t, "", "create", "namespace", "world")
	for name, extra := range valueSets {
		t.Run(name, func(t *testing.T) {
			manifest, objs := render(t, extra...)
			out := c.Kubectl(t, manifest, "apply", "--dry-run=server", "-n", "world", "-f", "-")
			if n := strings.Count(out, "(server dry run)"); n != len(objs) {
				t.Fatalf("server accepted %d of %d objects:\n%s", n, len(objs), out)
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
