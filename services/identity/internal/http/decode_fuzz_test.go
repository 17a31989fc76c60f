package http

import (
	"testing"

	"sharedworld.dev/pkg/testkit"
)

// Every request body this service decodes, fuzzed (see testkit.FuzzDecoders).
func FuzzRequestDecoding(f *testing.F) {
	testkit.FuzzDecoders(f, testkit.Decoders{
		"registerRequest":    func() any { return new(registerRequest) },
		"profileRequest":     func() any { return new(profileRequest) },
		"presenceRequest":    func() any { return new(presenceRequest) },
		"devRegisterRequest": func() any { return new(devRegisterRequest) },
		"devRevokeRequest":   func() any { return new(devRevokeRequest) },
		"devVerifyRequest":   func() any { return new(devVerifyRequest) },
	})
}
