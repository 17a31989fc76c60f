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
// (`make chart-table`) fails here.
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
		t.Fatalf("charts/shared-world/files/services.json differs from `go run ./hack/cmd/services`: run `make chart-table`\n got: %s\nwant: %s", got, want)
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
