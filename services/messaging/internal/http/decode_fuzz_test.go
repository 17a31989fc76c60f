package http

import (
	"testing"

	"sharedworld.dev/pkg/testkit"
)

// Every request body this service decodes, fuzzed (see testkit.FuzzDecoders).
func FuzzRequestDecoding(f *testing.F) {
	testkit.FuzzDecoders(f, testkit.Decoders{
		"sendRequest":  func() any { return new(sendRequest) },
		"keyRequest":   func() any { return new(keyRequest) },
		"inboxRequest": func() any { return new(inboxRequest) },
		"replyRequest": func() any { return new(replyRequest) },
		"postRequest":  func() any { return new(postRequest) },
	})
}
