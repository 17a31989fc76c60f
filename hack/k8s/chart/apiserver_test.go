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

// The chart installed on a real API server (no controllers: nothing runs,
// the objects are stored): generated keys are kept and pod templates do not
// change on an upgrade that changes nothing (issue 23, items 7 and 8); the
// bulletin rebuild is refused while an aggregator pod exists and runs once it
// is gone (item 5); and every object of a release with the longest name
// Helm accepts is valid (item 4).
func TestChartOnACluster(t *testing.T) {
	c := cluster.Start(t, filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "crds"), filepath.Join(root(t), "charts/shared-world/crds"))
	ctx := context.Background()
	chart := filepath.Join(root(t), "charts/shared-world")
	idp := []string{"--set-string", "secrets.providerKeys=test=" + testBallotKey}
	helmRun := func(args ...string) (string, error) { return c.Run(ctx, "", "helm", append(args, idp...)...) }
	if out, err := helmRun("install", "w", chart, "-n", "world", "--create-namespace"); err != nil {
		t.Fatalf("helm install without keys on a cluster: %v\n%s", err, out)
	}
	secret := func() string {
		return c.Kubectl(t, "", "-n", "world", "get", "secret", "w-shared-world-secrets", "-o", "jsonpath={.data.ballot-key}/{.data.ambassador-token}")
	}
	checksums := func() string {
		return c.Kubectl(t, "", "-n", "world", "get", "deployments", "-l", "app.kubernetes.io/instance=w,app.kubernetes.io/component!=operator", "-o",
			`jsonpath={range .items[*]}{.metadata.name}={.spec.template.metadata.annotations.checksum/secret}{"\n"}{end}`)
	}
	keys, sums := secret(), checksums()
	if len(keys) < 40 || strings.Count(sums, "=") < 7 || strings.Contains(sums, "=\n") {
		t.Fatalf("after install: keys %q, checksums\n%s", keys, sums)
	}
	if out, err := helmRun("upgrade", "w", chart, "-n", "world", "--reuse-values"); err != nil {
		t.Fatalf("helm upgrade: %v\n%s", err, out)
	}
	if got := secret(); got != keys {
		t.Errorf("the upgrade changed the generated keys: %s, then %s", keys, got)
	}
	if got := checksums(); got != sums {
		t.Errorf("an upgrade that changed nothing changed checksum/secret:\n%s\nthen\n%s", sums, got)
	}
	if out, err := helmRun("upgrade", "w", chart, "-n", "world", "--reuse-values", "--set", "secrets.ambassadorToken=a-new-token"); err != nil {
		t.Fatalf("helm upgrade: %v\n%s", err, out)
	}
	if got := checksums(); got == sums {
		t.Errorf("a new ambassador token kept checksum/secret:\n%s", got)
	}

	// An aggregator pod is up (as kwok or a kubelet would have it): no rebuild.
	c.Kubectl(t, aggregatorPod, "-n", "world", "apply", "-f", "-")
	rebuild := []string{"upgrade", "w", chart, "-n", "world", "--reuse-values", "--set", "services.bulletin.aggregator.replicas=0", "--set", "bulletinRebuild.enabled=true"}
	if out, err := helmRun(rebuild...); err == nil || !strings.Contains(err.Error(), "the aggregator pod w-shared-world-bulletin-aggregator-x still exists") {
		t.Fatalf("a rebuild beside an aggregator pod: %v\n%s", err, out)
	}
	if got := c.Kubectl(t, "", "-n", "world", "get", "jobs", "-o", "name"); strings.TrimSpace(got) != "" {
		t.Errorf("jobs after the refusal: %s", got)
	}
	c.Kubectl(t, "", "-n", "world", "delete", "pod", "w-shared-world-bulletin-aggregator-x", "--wait=true")
	if out, err := helmRun(rebuild...); err != nil {
		t.Fatalf("the rebuild with the aggregator gone: %v\n%s", err, out)
	}
	if got := c.Kubectl(t, "", "-n", "world", "get", "jobs", "-l", "app.kubernetes.io/component=bulletin-rebuild", "-o", "name"); !strings.Contains(got, "bulletin-rebuild") {
		t.Errorf("no rebuild Job: %q", got)
	}

	// The longest release name: every object is accepted.
	c.Kubectl(t, "", "create", "namespace", "long")
	manifest, objs := renderAs(t, longRelease, append(monitoringAPIs, "--set", "bulletinRebuild.enabled=true", "--set", "services.bulletin.aggregator.replicas=0")...)
	out := c.Kubectl(t, manifest, "apply", "--dry-run=server", "-n", "long", "-f", "-")
	if n := strings.Count(out, "(server dry run)"); n != len(objs) {
		t.Fatalf("server accepted %d of %d objects:\n%s", n, len(objs), out)
	}
}

// aggregatorPod stands for a running pod of the bulletin's aggregator.
const aggregatorPod = `apiVersion: v1
kind: Pod
metadata:
  name: w-shared-world-bulletin-aggregator-x
  labels:
    app.kubernetes.io/instance: w
    app.kubernetes.io/component: bulletin-aggregator
spec:
  serviceAccountName: w-shared-world
  automountServiceAccountToken: false
  containers:
    - name: bulletin
      image: sharedworld/bulletin:0.1.0
`
