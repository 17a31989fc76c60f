package httpx_test

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/testkit"
)

type echoRequest struct {
	Name  *string           `json:"name"`
	Count int               `json:"count"`
	Tags  []string          `json:"tags"`
	Meta  map[string]string `json:"meta"`
}

func FuzzDecode(f *testing.F) {
	testkit.FuzzDecoders(f, testkit.Decoders{
		"echo":        func() any { return new(echoRequest) },
		"permissions": func() any { return new(permissionsRequest) },
	})
}

// A cursor is accepted only when it carries exactly the fields of the
// position, and then it reads back the position it names.
func FuzzDecodeCursor(f *testing.F) {
	type pos struct {
		X int    `json:"x"`
		K string `json:"k"`
	}
	for _, s := range []string{"e30", "", "!!!", httpx.EncodeCursor(pos{3, "a"}), httpx.EncodeCursor(map[string]any{"x": 1, "k": "b", "z": 0})} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var p pos
		if httpx.DecodeCursor(raw, &p) != nil {
			return
		}
		b, _ := base64.RawURLEncoding.DecodeString(raw)
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(b, &fields); err != nil || len(fields) != 2 || fields["x"] == nil || fields["k"] == nil {
			t.Fatalf("cursor %q (%s) accepted without exactly the fields x and k", raw, b)
		}
		var again pos
		if err := httpx.DecodeCursor(httpx.EncodeCursor(p), &again); err != nil || again != p {
			t.Fatalf("cursor %q: %+v does not round-trip: %v %+v", raw, p, err, again)
		}
	})
}
