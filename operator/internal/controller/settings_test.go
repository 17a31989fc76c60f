package controller

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	worldv1 "sharedworld.dev/operator/api/v1alpha1"
)

// Every field of a World's spec becomes a setting, and every setting is a
// variable some service of the repository reads: a field nothing reads
// would be accepted by the API server and silently do nothing.
func TestEverySpecFieldReachesAService(t *testing.T) {
	var spec worldv1.WorldSpec
	v := reflect.ValueOf(&spec).Elem()
	for i := range v.NumField() {
		switch f := v.Field(i); f.Kind() {
		case reflect.String:
			f.SetString("2026-01-15")
		case reflect.Int32:
			f.SetInt(7)
		default:
			t.Fatalf("spec.%s (%s): the settings know no such kind of field", v.Type().Field(i).Name, f.Kind())
		}
	}
	settings := Settings(spec)
	if len(settings) != v.NumField() {
		t.Errorf("%d spec fields give %d settings: %v", v.NumField(), len(settings), settings)
	}
	sources := goSources(t, filepath.Join("..", "..", "..", "services"), filepath.Join("..", "..", "..", "pkg"))
	for key := range settings {
		if !strings.Contains(sources, `"`+key+`"`) {
			t.Errorf("setting %s is read by no service", key)
		}
	}
}

// goSources is the non-test Go source under dirs, concatenated.
func goSources(t *testing.T, dirs ...string) string {
	t.Helper()
	var b strings.Builder
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			raw, err := os.ReadFile(path)
			b.Write(raw)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}
