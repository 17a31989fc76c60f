package domain

import (
	"testing"

	"sharedworld.dev/pkg/problem"
)

func TestValidateGardenPath(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		path string
		want problem.Kind
	}{
		{"§4 garden: the index", "/garden/index.md", accepted},
		{"§4 garden: /garden/<name>/<item>.md", "/garden/ada/poem.md", accepted},
		{"§4 garden: an item called index in a bed", "/garden/ada/index.md", accepted},
		{"§4 garden: dots and dashes in names", "/garden/a.b-c/x_y.z.md", accepted},
		{"§11 garden: a file directly in /garden/ is 400", "/garden/poem.md", problem.KindInvalid},
		{"§11 garden: too deep is 400", "/garden/ada/2026/poem.md", problem.KindInvalid},
		{"§11 garden: not markdown is 400", "/garden/ada/poem.txt", problem.KindInvalid},
		{"§11 garden: an item without a name is 400", "/garden/ada/.md", problem.KindInvalid},
		{"§11 garden: upper-case extension is 400", "/garden/ada/poem.MD", problem.KindInvalid},
		{"§11 garden: the index under another name is 400", "/garden/index.markdown", problem.KindInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if err := ValidatePath(tc.path); err != nil {
				t.Fatalf("row must hold a valid path: %v", err)
			}
			checkKind(t, ValidateGardenPath(tc.path), tc.want)
		})
	}
}

func TestGardenVerb(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		path    string
		existed bool
		want    Verb
	}{
		{"§4 garden: a new path is planted", "/garden/ada/poem.md", false, Planted},
		{"§4 garden: an existing path is tended", "/garden/ada/poem.md", true, Tended},
		{"§4 garden: the index is tended when new", "/garden/index.md", false, Tended},
		{"§4 garden: the index is tended when existing", "/garden/index.md", true, Tended},
		{"§4 garden: a bed's own index.md is planted when new", "/garden/ada/index.md", false, Planted},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := GardenVerb(tc.path, tc.existed); got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestInGarden(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]bool{
		"/garden/index.md": true, "/garden/a/b.md": true, "/garden": false,
		"/gardens/a/b.md": false, "/Garden/a/b.md": false, "/x/garden/a.md": false,
	} {
		if got := InGarden(path); got != want {
			t.Errorf("§4 garden: InGarden(%q) = %v, want %v", path, got, want)
		}
	}
}
