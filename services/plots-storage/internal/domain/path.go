package domain

import (
	"fmt"
	"strings"

	"sharedworld.dev/pkg/problem"
)

// Path limits (CONTRACT §4).
const (
	MaxPathLength    = 256
	MaxSegmentLength = 64
)

const pathHint = "a path is absolute and /-separated, like /notes/today.md: " +
	"each segment 1-64 of A-Z a-z 0-9 . _ -, no . or .. segments, at most 256 characters; " +
	"paths are taken literally, never URL-decoded"

// ValidatePath checks a file path. A path of the wrong shape is 400; a path of
// the right shape that is simply too long is 422 (CONTRACT §11: over a length
// limit). The path is never decoded or cleaned: what is stored is what was sent,
// so a refused spelling cannot slip through in another form.
func ValidatePath(p string) error {
	if p == "" {
		return problem.Invalid("path is required", pathHint)
	}
	if p[0] != '/' {
		return problem.Invalid("path must be absolute (start with /)", pathHint)
	}
	if len(p) == 1 {
		return problem.Invalid("path / names no file", pathHint)
	}
	if strings.Contains(p, "//") {
		return problem.Invalid("path has an empty segment (//)", pathHint)
	}
	if strings.HasSuffix(p, "/") {
		return problem.Invalid("path must name a file, not end with /", pathHint)
	}
	longSegment := false
	for _, seg := range strings.Split(p[1:], "/") {
		if seg == "." || seg == ".." {
			return problem.Invalid(fmt.Sprintf("path segment %q is not allowed", seg), pathHint)
		}
		if err := checkSegmentChars(seg); err != nil {
			return err
		}
		if len(seg) > MaxSegmentLength {
			longSegment = true
		}
	}
	if longSegment {
		return problem.Validation(
			fmt.Sprintf("a path segment is longer than %d characters", MaxSegmentLength), pathHint)
	}
	if len(p) > MaxPathLength {
		return problem.Validation(
			fmt.Sprintf("path is %d characters long, the limit is %d", len(p), MaxPathLength), pathHint)
	}
	return nil
}

func checkSegmentChars(seg string) error {
	for i := 0; i < len(seg); i++ {
		if segmentChar(seg[i]) {
			continue
		}
		var what string
		switch b := seg[i]; {
		case b == '\\':
			what = "a backslash"
		case b == 0:
			what = "a NUL byte"
		case b == '%':
			what = "a % (paths are not URL-decoded)"
		case b < 0x20 || b == 0x7f:
			what = fmt.Sprintf("the control byte 0x%02x", b)
		case b >= 0x80:
			what = "a non-ASCII character"
		default:
			what = fmt.Sprintf("the character %q", rune(b))
		}
		return problem.Invalid("path contains "+what, pathHint)
	}
	return nil
}

func segmentChar(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' ||
		b == '.' || b == '_' || b == '-'
}

// ValidatePrefix checks the prefix of a listing: empty (every file) or the
// start of a path — absolute, path characters only, no empty or dot segments
// before the last one, at most MaxPathLength characters.
func ValidatePrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	hint := "prefix is the start of a path, like /garden/ or /notes/to; leave it out to list every file"
	if prefix[0] != '/' {
		return problem.Invalid("prefix must start with /", hint)
	}
	if len(prefix) > MaxPathLength {
		return problem.Validation(fmt.Sprintf("prefix is longer than %d characters", MaxPathLength), hint)
	}
	segs := strings.Split(prefix[1:], "/")
	for i, seg := range segs {
		last := i == len(segs)-1
		if seg == "" && !last {
			return problem.Invalid("prefix has an empty segment (//)", hint)
		}
		if (seg == "." || seg == "..") && !last {
			return problem.Invalid(fmt.Sprintf("prefix segment %q is not allowed", seg), hint)
		}
		if err := checkSegmentChars(seg); err != nil {
			pe, _ := problem.As(err)
			return problem.Invalid(strings.Replace(pe.Message, "path", "prefix", 1), hint)
		}
	}
	return nil
}
