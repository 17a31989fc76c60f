package chart_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The chart's copy of the service table is the table: the Ingress is built
// from it, so a service added to hack/services without regenerating
// (`make chart-files`) fails here.
func TestChartTableIsTheServiceTable(t *testing.T) {
	cmd := exec.Command("go", "run", "./hack/cmd/services")
	cmd.Dir = root(t)
	want, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root(t), "charts/shared-world/files/services.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("charts/shared-world/files/services.json differs from `go run ./hack/cmd/services`: run `make chart-files`\n got: %s\nwant: %s", got, want)
	}
}

// The chart installs the operator's CRD and grants its Role exactly what
// controller-gen generated from the code's markers (copies: a chart
// cannot read outside its folder).
func TestChartOperatorCopiesAreCurrent(t *testing.T) {
	for src, dst := range map[string]string{
		"operator/config/crd/bases/sharedworld.dev_worlds.yaml": "charts/shared-world/crds/sharedworld.dev_worlds.yaml",
		"operator/config/rbac/role.yaml":                        "charts/shared-world/files/operator-role.yaml",
	} {
		a, err1 := os.ReadFile(filepath.Join(root(t), src))
		b, err2 := os.ReadFile(filepath.Join(root(t), dst))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%s and %s differ (%v, %v): run `make chart-files`", src, dst, err1, err2)
		}
	}
}

func root(t testing.TB) string {
	t.Helper()
	r, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	return r
}
