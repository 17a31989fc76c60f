//go:build k8s

package chart_test

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/yaml"
)

// obj is one rendered manifest.
type obj map[string]any

func (o obj) kind() string { return str(o, "kind") }
func (o obj) name() string { return str(o, "metadata", "name") }

// get walks maps by key and lists by index ("0").
func get(v any, path ...string) any {
	for _, p := range path {
		switch m := v.(type) {
		case map[string]any:
			v = m[p]
		case obj:
			v = m[p]
		case []any:
			i := 0
			for _, c := range p {
				i = i*10 + int(c-'0')
			}
			if i >= len(m) {
				return nil
			}
			v = m[i]
		default:
			return nil
		}
	}
	return v
}

func str(v any, path ...string) string { s, _ := get(v, path...).(string); return s }

func helm(t testing.TB, args ...string) string {
	t.Helper()
	tools := os.Getenv("KUBEBUILDER_ASSETS")
	if tools == "" {
		t.Fatal("KUBEBUILDER_ASSETS is not set: run `make test-k8s`")
	}
	cmd := exec.Command(filepath.Join(tools, "helm"), args...)
	cmd.Dir = root(t)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("helm %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errOut.String())
	}
	return out.String()
}

// rendered are the values every render without a cluster must set: the
// secrets the chart would otherwise have to generate (it refuses to
// without a cluster) and an identity provider.
var rendered = []string{
	"--set", "secrets.ballotKey=" + testBallotKey, "--set", "secrets.ambassadorToken=test-ambassador-token",
	"--set-string", "secrets.providerKeys=test=" + testBallotKey,
}

const testBallotKey = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="

// render runs helm template with the extra arguments and decodes every object.
func render(t testing.TB, extra ...string) (string, []obj) {
	t.Helper()
	return renderAs(t, "world", extra...)
}

// renderAs renders the chart as release name.
func renderAs(t testing.TB, release string, extra ...string) (string, []obj) {
	t.Helper()
	args := append([]string{"template", release, "charts/shared-world", "--namespace", "world"}, rendered...)
	manifest := helm(t, append(args, extra...)...)
	return manifest, decodeAll(t, manifest)
}

// renderErr renders the chart with only the extra arguments, for a render
// that must fail: its combined output and error.
func renderErr(t testing.TB, extra ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "helm"),
		append([]string{"template", "world", "charts/shared-world", "--namespace", "world"}, extra...)...)
	cmd.Dir = root(t)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// decodeAll decodes every object of a manifest.
func decodeAll(t testing.TB, manifest string) []obj {
	t.Helper()
	dec := yaml.NewYAMLOrJSONDecoder(strings.NewReader(manifest), 4096)
	var out []obj
	for {
		var o obj
		if err := dec.Decode(&o); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("decode the manifest: %v", err)
		}
		if o != nil {
			out = append(out, o)
		}
	}
	return out
}

type tableEntry struct {
	Name      string   `json:"name"`
	Prefixes  []string `json:"prefixes"`
	BodyLimit int      `json:"body_limit_bytes"`
	Jobs      []string `json:"jobs"`
}

func table(t testing.TB) []tableEntry {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root(t), "charts/shared-world/files/services.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []tableEntry
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
