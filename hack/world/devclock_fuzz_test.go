package world

import (
	"testing"

	"sharedworld.dev/pkg/testkit"
)

// The development clock's request body, fuzzed (see testkit.FuzzDecoders).
func FuzzDevClockDecoding(f *testing.F) {
	f.Add([]byte(`{"advance":"9223372036854775807ns"}`), uint8(0))
	testkit.FuzzDecoders(f, testkit.Decoders{"advance": func() any { return new(advanceRequest) }})
}
