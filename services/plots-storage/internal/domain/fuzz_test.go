package domain

import (
	"bytes"
	"encoding/base64"
	"path"
	"strings"
	"testing"

	"sharedworld.dev/pkg/problem"
)

// FuzzValidatePath: whatever is accepted is a clean, absolute, bounded path
// with no traversal or escape spelling; whatever is refused is a 400 or 422.
// Seeds live in testdata/fuzz/FuzzValidatePath.
func FuzzValidatePath(f *testing.F) {
	f.Fuzz(func(t *testing.T, p string) {
		err := ValidatePath(p)
		if err != nil {
			pe, ok := problem.As(err)
			if !ok || (pe.Kind != problem.KindInvalid && pe.Kind != problem.KindValidation) || pe.Hint == "" {
				t.Fatalf("refusal of %q is not a 400/422 with a hint: %v", p, err)
			}
			return
		}
		if len(p) > MaxPathLength || !strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") {
			t.Fatalf("accepted %q: bad length or ends", p)
		}
		if path.Clean(p) != p {
			t.Fatalf("accepted %q, which cleans to %q", p, path.Clean(p))
		}
		if strings.ContainsAny(p, "\\%\x00 ") || strings.Contains(p, "//") {
			t.Fatalf("accepted %q with a forbidden spelling", p)
		}
		for _, seg := range strings.Split(p[1:], "/") {
			if seg == "." || seg == ".." || seg == "" || len(seg) > MaxSegmentLength {
				t.Fatalf("accepted %q with segment %q", p, seg)
			}
			for _, r := range seg {
				if r >= 0x80 || !segmentChar(byte(r)) {
					t.Fatalf("accepted %q with character %q", p, r)
				}
			}
		}
	})
}

// FuzzDecodeContent: an accepted string is the one canonical standard
// base64 encoding of what it decodes to, within the limit; a refused one is
// a 400 (bad base64) or a 413 (too large).
func FuzzDecodeContent(f *testing.F) {
	const limit = 64
	f.Fuzz(func(t *testing.T, s string) {
		b, err := DecodeContent(s, limit)
		if err != nil {
			pe, ok := problem.As(err)
			if !ok || (pe.Kind != problem.KindInvalid && pe.Kind != problem.KindTooLarge) || pe.Hint == "" {
				t.Fatalf("refusal of %q is not a 400/413 with a hint: %v", s, err)
			}
			if pe.Kind == problem.KindTooLarge {
				if _, err := base64.StdEncoding.Strict().DecodeString(s); err == nil && len(s)/4*3 <= limit {
					t.Fatalf("%q refused as too large but fits", s)
				}
			}
			return
		}
		if len(b) > limit {
			t.Fatalf("accepted %d bytes over the limit %d", len(b), limit)
		}
		if enc := base64.StdEncoding.EncodeToString(b); enc != s {
			t.Fatalf("accepted %q, but the canonical encoding of its bytes is %q", s, enc)
		}
	})
}

// FuzzContentRoundTrip: every byte string, encoded the standard way, is
// accepted and decodes back to itself.
func FuzzContentRoundTrip(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := DecodeContent(base64.StdEncoding.EncodeToString(b), MaxFileBytes)
		if err != nil {
			t.Fatalf("standard encoding of %q refused: %v", b, err)
		}
		if !bytes.Equal(got, b) {
			t.Fatalf("round trip of %q gave %q", b, got)
		}
	})
}
