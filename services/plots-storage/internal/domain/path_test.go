package domain

import (
	"strings"
	"testing"

	"sharedworld.dev/pkg/problem"
)

func TestValidatePath(t *testing.T) {
	t.Parallel()
	seg64 := strings.Repeat("a", 64)
	cases := []struct {
		name string
		path string
		want problem.Kind
	}{
		{"§4 paths: a file at the root", "/notes.md", accepted},
		{"§4 paths: nested segments", "/garden/ada/poem.md", accepted},
		{"§4 paths: every allowed character", "/AZaz09._-/x", accepted},
		{"§4 paths: dots inside a segment", "/a..b/.hidden/...", accepted},
		{"§4 paths: a 64-character segment", "/" + seg64, accepted},
		{"§4 paths: exactly 256 characters", "/" + seg64 + "/" + seg64 + "/" + seg64 + "/" + strings.Repeat("b", 60), accepted},
		{"§11 missing: empty path is 400", "", problem.KindInvalid},
		{"§4 paths: relative path is 400", "notes.md", problem.KindInvalid},
		{"§4 paths: the root alone names no file", "/", problem.KindInvalid},
		{"§4 paths: trailing slash is 400", "/notes/", problem.KindInvalid},
		{"§4 paths: double slash is 400", "//notes.md", problem.KindInvalid},
		{"§4 paths: double slash inside is 400", "/a//b", problem.KindInvalid},
		{"§4 paths: a .. segment is 400", "/a/../b", problem.KindInvalid},
		{"§4 paths: a leading .. is 400", "/../etc/passwd", problem.KindInvalid},
		{"§4 paths: a trailing .. is 400", "/a/..", problem.KindInvalid},
		{"§4 paths: a . segment is 400", "/a/./b", problem.KindInvalid},
		{"§4 paths: percent-encoded dots are 400", "/a/%2e%2e/b", problem.KindInvalid},
		{"§4 paths: percent-encoded slash is 400", "/a%2fb", problem.KindInvalid},
		{"§4 paths: double-encoded dots are 400", "/%252e%252e/x", problem.KindInvalid},
		{"§4 paths: backslash is 400", "/a\\b", problem.KindInvalid},
		{"§4 paths: backslash traversal is 400", "/..\\..\\etc", problem.KindInvalid},
		{"§4 paths: NUL is 400", "/a\x00b", problem.KindInvalid},
		{"§4 paths: NUL-truncation trick is 400", "/a.md\x00.png", problem.KindInvalid},
		{"§4 paths: a space is 400", "/my notes.md", problem.KindInvalid},
		{"§4 paths: a newline is 400", "/a\nb", problem.KindInvalid},
		{"§4 paths: a tilde is 400", "/~/x", problem.KindInvalid},
		{"§4 paths: a colon is 400", "/c:/x", problem.KindInvalid},
		{"§4 paths: non-ASCII is 400", "/café.md", problem.KindInvalid},
		{"§4 paths: fullwidth dots are 400", "/．．/x", problem.KindInvalid},
		{"§11 length: a 65-character segment is 422", "/" + strings.Repeat("a", 65), problem.KindValidation},
		{"§11 length: 257 characters is 422", "/" + seg64 + "/" + seg64 + "/" + seg64 + "/" + strings.Repeat("b", 61), problem.KindValidation},
		{"§11 length: very long is 422", strings.Repeat("/abc", 1000), problem.KindValidation},
		{"§4 paths: shape is judged before length", strings.Repeat("/abc", 100) + "/..", problem.KindInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkKind(t, ValidatePath(tc.path), tc.want)
		})
	}
}

func TestValidatePrefix(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		prefix string
		want   problem.Kind
	}{
		{"§4 list: no prefix lists everything", "", accepted},
		{"§4 list: the root", "/", accepted},
		{"§4 list: a directory", "/garden/", accepted},
		{"§4 list: a partial name", "/garden/ad", accepted},
		{"§4 list: a partial dot name", "/notes/.", accepted},
		{"§4 list: relative prefix is 400", "garden/", problem.KindInvalid},
		{"§4 list: double slash is 400", "/garden//", problem.KindInvalid},
		{"§4 list: a .. segment is 400", "/../", problem.KindInvalid},
		{"§4 list: backslash is 400", "/a\\", problem.KindInvalid},
		{"§4 list: NUL is 400", "/a\x00", problem.KindInvalid},
		{"§4 list: percent is 400", "/%2e", problem.KindInvalid},
		{"§11 length: over 256 is 422", "/" + strings.Repeat("a/", 128), problem.KindValidation},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkKind(t, ValidatePrefix(tc.prefix), tc.want)
		})
	}
}
