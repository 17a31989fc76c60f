package http

import (
	"testing"

	"sharedworld.dev/pkg/testkit"
)

// Every request body this service decodes, fuzzed (see testkit.FuzzDecoders).
func FuzzRequestDecoding(f *testing.F) {
	testkit.FuzzDecoders(f, testkit.Decoders{
		"announcementRequest": func() any { return new(announcementRequest) },
	})
}
