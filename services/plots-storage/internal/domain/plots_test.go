package domain

import (
	"strings"
	"testing"

	"sharedworld.dev/pkg/problem"
)

func TestContentType(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		given string
		path  string
		want  string
		kind  problem.Kind
	}{
		{"§4 write: markdown by extension", "", "/garden/ada/poem.md", "text/markdown; charset=utf-8", accepted},
		{"§4 write: unknown extension is octet-stream", "", "/data.bin", "application/octet-stream", accepted},
		{"§4 write: no extension is octet-stream", "", "/README", "application/octet-stream", accepted},
		{"§4 write: a given type is kept, normalised", "Text/Plain; Charset=UTF-8", "/a", "text/plain; charset=UTF-8", accepted},
		{"§1 invalid: not a media type is 400", "markdown", "/a", "", problem.KindInvalid},
		{"§1 invalid: garbage parameters are 400", "text/plain; ;;=", "/a", "", problem.KindInvalid},
		{"§11 length: over 200 characters is 422", "text/" + strings.Repeat("x", 200), "/a", "", problem.KindValidation},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ContentType(tc.given, tc.path)
			checkKind(t, err, tc.kind)
			if got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}
