// Package layers checks the shape every service shares (STYLE.md): the
// domain and the use cases know no framework or database (and the use
// cases no metrics library: they report to an Observer), the HTTP layer no
// database, the app layer no backend mode, and a store's MongoDB adapter
// never reaches into the in-memory copy the mirrored adapter keeps.
package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// forbidden imports per layer (prefix match).
var forbidden = map[string][]string{
	"domain": {"github.com/gofiber/", "go.mongodb.org/", "github.com/segmentio/kafka-go", "sharedworld.dev/pkg/mongox", "sharedworld.dev/pkg/embedded"},
	"app":    {"github.com/gofiber/", "go.mongodb.org/", "github.com/segmentio/kafka-go", "sharedworld.dev/pkg/mongox", "sharedworld.dev/pkg/embedded", "github.com/prometheus/", "sharedworld.dev/pkg/metrics"},
	"http":   {"go.mongodb.org/", "github.com/segmentio/kafka-go", "sharedworld.dev/pkg/mongox", "sharedworld.dev/pkg/embedded"},
}

// modeWords name a backend mode; the app layer decides no rule by backend.
var modeWords = []string{"exclusive", "solewriter", "mirror"}

func TestServiceLayers(t *testing.T) {
	root := filepath.Join("..", "..", "services")
	services, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, svc := range services {
		internal := filepath.Join(root, svc.Name(), "internal")
		if _, err := os.Stat(internal); err != nil {
			continue
		}
		err := filepath.WalkDir(internal, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			checked++
			checkFile(t, path)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked < 100 {
		t.Fatalf("checked %d files; the services were not found", checked)
	}
}

func checkFile(t *testing.T, path string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	layer := filepath.Base(filepath.Dir(path))
	for _, imp := range f.Imports {
		p := strings.Trim(imp.Path.Value, `"`)
		for _, bad := range forbidden[layer] {
			if strings.HasPrefix(p, bad) {
				t.Errorf("%s: the %s layer imports %s", path, layer, p)
			}
		}
	}
	switch {
	case layer == "app" || layer == "http":
		if w := modeWord(f, modeWords...); w != "" {
			t.Errorf("%s: the %s layer names a backend mode (%s); choose the adapter where the service is built", path, layer, w)
		}
	case layer == "store" && !strings.Contains(filepath.Base(path), "mirror"):
		if modeWord(f, "mirror") != "" {
			t.Errorf("%s: a MongoDB adapter file references the in-memory copy; that belongs in the mirrored adapter's files (*mirror*.go)", path)
		}
	}
}

// modeWord is the first of words an identifier of f contains (comments
// are not identifiers), or "".
func modeWord(f *ast.File, words ...string) string {
	found := ""
	ast.Inspect(f, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok || found != "" {
			return found == ""
		}
		name := strings.ToLower(id.Name)
		for _, w := range words {
			if strings.Contains(name, w) {
				found = w
			}
		}
		return found == ""
	})
	return found
}
