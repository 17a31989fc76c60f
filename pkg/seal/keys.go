package seal

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"sync"
	"time"
)

// Keys holds derived keys in memory for a while, so that records sealed
// under one passphrase cost one Argon2id derivation, not one each: a
// citizen who sends many direct messages with one encryption_key, or lists
// a page of them, would otherwise pay the derivation's tens of
// milliseconds of CPU per message. Sealing reuses a passphrase's salt (and
// so its key) for up to KeyReuse; AES-GCM with a random nonce per record
// stays safe for far more records under one key than that window sees.
//
// Nothing is stored: the keys live in this process's memory only, indexed
// by a keyed hash of the passphrase under a secret drawn at start, so the
// index does not help guess a passphrase either. At most maxKeys are held;
// the oldest go first.
type Keys struct {
	secret [32]byte
	now    func() time.Time

	mu      sync.Mutex
	sealing map[[32]byte]heldKey // by passphrase and params
	derived map[[32]byte]heldKey // by passphrase, salt and params
}

// KeyReuse is how long one salt (one derived key) seals a passphrase's
// records, and how long a derived key is held for opening.
const KeyReuse = 10 * time.Minute

// maxKeys bounds each of the two indexes.
const maxKeys = 4096

// heldKey is a derived key with the salt it was derived with.
type heldKey struct {
	salt, key []byte
	made      time.Time
}

// NewKeys is an empty key cache with a fresh secret.
func NewKeys() *Keys {
	k := &Keys{now: time.Now, sealing: map[[32]byte]heldKey{}, derived: map[[32]byte]heldKey{}}
	_, _ = rand.Read(k.secret[:]) // crypto/rand.Read never fails (Go ≥ 1.24)
	return k
}

// forSealing is the salt and key to seal passphrase's next record with.
func (k *Keys) forSealing(passphrase string, p Params) (salt, key []byte) {
	id := k.index(passphrase, nil, p)
	if h, ok := k.held(k.sealing, id); ok {
		return h.salt, h.key
	}
	salt = make([]byte, saltLen)
	_, _ = rand.Read(salt)
	h := heldKey{salt: salt, key: derive(passphrase, salt, p), made: k.now()}
	k.hold(k.sealing, id, h)
	k.hold(k.derived, k.index(passphrase, salt, p), h)
	return h.salt, h.key
}

// forOpening is the key passphrase derives with salt and p.
func (k *Keys) forOpening(passphrase string, salt []byte, p Params) []byte {
	id := k.index(passphrase, salt, p)
	if h, ok := k.held(k.derived, id); ok {
		return h.key
	}
	h := heldKey{salt: salt, key: derive(passphrase, salt, p), made: k.now()}
	k.hold(k.derived, id, h)
	return h.key
}

// held is index's key id, unless it is missing or older than KeyReuse.
func (k *Keys) held(index map[[32]byte]heldKey, id [32]byte) (heldKey, bool) {
	k.mu.Lock()
	h, ok := index[id]
	k.mu.Unlock()
	return h, ok && k.now().Sub(h.made) < KeyReuse
}

// hold puts h in index under id, first making room in a full index: the
// oldest goes (a scan, rare next to the derivation that came before).
func (k *Keys) hold(index map[[32]byte]heldKey, id [32]byte, h heldKey) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(index) >= maxKeys {
		var oldest [32]byte
		var at time.Time
		for i, v := range index {
			if at.IsZero() || v.made.Before(at) {
				oldest, at = i, v.made
			}
		}
		delete(index, oldest)
	}
	index[id] = h
}

// index is the keyed hash naming a passphrase's key (salt nil: its
// sealing salt).
func (k *Keys) index(passphrase string, salt []byte, p Params) [32]byte {
	m := hmac.New(sha256.New, k.secret[:])
	var costs [9]byte
	binary.BigEndian.PutUint32(costs[0:], p.Time)
	binary.BigEndian.PutUint32(costs[4:], p.MemoryKiB)
	costs[8] = p.Threads
	m.Write(costs[:])
	m.Write([]byte{byte(len(salt))})
	m.Write(salt)
	m.Write([]byte(passphrase))
	var id [32]byte
	copy(id[:], m.Sum(nil))
	return id
}
