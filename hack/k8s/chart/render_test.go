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

// render runs helm template with the extra arguments and decodes every object.
func render(t testing.TB, extra ...string) (string, []obj) {
	t.Helper()
	manifest := helm(t, append([]string{"template", "world", "charts/shared-world", "--namespace", "world"}, extra...)...)
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
	return manifest, out
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
