// Package ballot seals ballot choices with AES-256-GCM under the server's
// ballot key, so that storage, logs and events hold only ciphertext. Each
// sealed ballot is bound (as additional data) to its ballot box, voter and
// vote id: a ciphertext copied onto another voter's ballot does not open.
package ballot

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
)

// KeySize is the AES-256 key length in bytes.
const KeySize = 32

// Box seals and opens ballots under one key.
type Box struct{ aead cipher.AEAD }

// ParseKey reads a base64 (standard) key of exactly 32 bytes.
func ParseKey(b64 string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, errors.New("the ballot key is not standard base64")
	}
	if len(key) != KeySize {
		return nil, fmt.Errorf("the ballot key is %d bytes; it must be %d (base64 of 32 random bytes)", len(key), KeySize)
	}
	return key, nil
}

// NewKey draws a fresh random key.
func NewKey() []byte {
	k := make([]byte, KeySize)
	_, _ = rand.Read(k)
	return k
}

// NewBox makes a box for a 32-byte key.
func NewBox(key []byte) (*Box, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("ballot key must be %d bytes, got %d", KeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Box{aead: aead}, nil
}

// Seal encrypts choice for the ballot named by box, voter and voteID: a
// random 12-byte nonce followed by the ciphertext and tag.
func (b *Box) Seal(choice, box, voter, voteID string) []byte {
	nonce := make([]byte, b.aead.NonceSize())
	_, _ = rand.Read(nonce)
	return b.aead.Seal(nonce, nonce, []byte(choice), bind(box, voter, voteID))
}

// Open decrypts a sealed ballot; a wrong key or a ballot moved to another
// voter or box fails.
func (b *Box) Open(sealed []byte, box, voter, voteID string) (string, error) {
	n := b.aead.NonceSize()
	if len(sealed) < n {
		return "", errors.New("sealed ballot too short")
	}
	out, err := b.aead.Open(nil, sealed[:n], sealed[n:], bind(box, voter, voteID))
	if err != nil {
		return "", errors.New("the ballot does not open under this key")
	}
	return string(out), nil
}

func bind(box, voter, voteID string) []byte { return []byte(box + "\x00" + voter + "\x00" + voteID) }
