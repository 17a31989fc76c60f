package http

import (
	"testing"

	"sharedworld.dev/pkg/testkit"
)

// Every request body this service decodes, fuzzed (see testkit.FuzzDecoders).
func FuzzRequestDecoding(f *testing.F) {
	testkit.FuzzDecoders(f, testkit.Decoders{
		"proposeRequest": func() any { return new(proposeRequest) },
		"recallRequest":  func() any { return new(recallRequest) },
		"voteRequest":    func() any { return new(voteRequest) },
		"electRequest":   func() any { return new(electRequest) },
	})
}
