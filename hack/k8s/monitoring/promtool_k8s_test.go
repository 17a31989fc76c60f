//go:build k8s

package monitoring_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sharedworld.dev/hack/k8s/monitoring"
)

// promtool (hack/k8s-tools.sh builds it) checks the rule file and runs
// the unit tests of every alert in rules_test.yaml.
func TestPromtool(t *testing.T) {
	tools := os.Getenv("KUBEBUILDER_ASSETS")
	if tools == "" {
		t.Fatal("KUBEBUILDER_ASSETS is not set: run `make test-k8s`")
	}
	dir := filepath.Join(root(t), "deploy/prometheus")
	for _, args := range [][]string{{"check", "rules", "rules.yaml"}, {"test", "rules", "rules_test.yaml"}} {
		cmd := exec.Command(filepath.Join(tools, "promtool"), args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "SUCCESS") {
			t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		t.Logf("promtool %s:\n%s", strings.Join(args, " "), out)
	}
}

// Every alert has a unit test in rules_test.yaml that expects it to fire.
func TestEveryAlertIsUnitTested(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(root(t), "deploy/prometheus/rules_test.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rules := alerts(t)
	for _, a := range rules {
		if !strings.Contains(string(raw), "alertname: "+a+"\n        exp_alerts:\n          - exp_labels") {
			t.Errorf("no unit test expects %s to fire", a)
		}
	}
}

func alerts(t *testing.T) []string {
	t.Helper()
	rules, err := monitoring.Rules(filepath.Join(root(t), "deploy/prometheus/rules.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rules {
		if r.Alert != "" {
			out = append(out, r.Alert)
		}
	}
	return out
}
