package events

import (
	"crypto/rand"
	"encoding/hex"
)

// newEventID returns 16 random bytes in hex: unique enough to dedupe on forever.
func newEventID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
