package http

import (
	"testing"

	"sharedworld.dev/pkg/testkit"
)

// Every request body this service decodes, fuzzed (see testkit.FuzzDecoders).
func FuzzRequestDecoding(f *testing.F) {
	testkit.FuzzDecoders(f, testkit.Decoders{
		"writeRequest":       func() any { return new(writeRequest) },
		"fileRef":            func() any { return new(fileRef) },
		"claimRequest":       func() any { return new(claimRequest) },
		"permissionsRequest": func() any { return new(permissionsRequest) },
		"backupRequest":      func() any { return new(backupRequest) },
		"restoreRequest":     func() any { return new(restoreRequest) },
	})
}
