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
	sealing map[[32]byte]sealingKey // by passphrase and params
	derived map[[32]byte]heldKey    // by passphrase, salt and params
}

// KeyReuse is how long one salt (one derived key) seals a passphrase's
// records, and how long a derived key is held for opening.
const KeyReuse = 10 * time.Minute

// maxKeys bounds each of the two indexes.
const maxKeys = 4096

type sealingKey struct {
	salt, key []byte
	made      time.Time
}

type heldKey struct {
	key  []byte
	made time.Time
}

// NewKeys is an empty key cache with a fresh secret.
func NewKeys() *Keys {
	k := &Keys{now: time.Now, sealing: map[[32]byte]sealingKey{}, derived: map[[32]byte]heldKey{}}
	_, _ = rand.Read(k.secret[:]) // crypto/rand.Read never fails (Go ≥ 1.24)
	return k
}

// forSealing is the salt and key to seal passphrase's next record with.
func (k *Keys) forSealing(passphrase string, p Params) (salt, key []byte) {
	id := k.index(passphrase, nil, p)
	now := k.now()
	k.mu.Lock()
	s, ok := k.sealing[id]
	k.mu.Unlock()
	if ok && now.Sub(s.made) < KeyReuse {
		return s.salt, s.key
	}
	salt = make([]byte, saltLen)
	_, _ = rand.Read(salt)
	key = derive(passphrase, salt, p)
	k.mu.Lock()
	defer k.mu.Unlock()
	evictOldest(k.sealing, func(s sealingKey) time.Time { return s.made })
	k.sealing[id] = sealingKey{salt: salt, key: key, made: now}
	evictOldest(k.derived, func(h heldKey) time.Time { return h.made })
	k.derived[k.index(passphrase, salt, p)] = heldKey{key: key, made: now}
	return salt, key
}

// forOpening is the key passphrase derives with salt and p.
func (k *Keys) forOpening(passphrase string, salt []byte, p Params) []byte {
	id := k.index(passphrase, salt, p)
	now := k.now()
	k.mu.Lock()
	h, ok := k.derived[id]
	k.mu.Unlock()
	if ok && now.Sub(h.made) < KeyReuse {
		return h.key
	}
	key := derive(passphrase, salt, p)
	k.mu.Lock()
	defer k.mu.Unlock()
	evictOldest(k.derived, func(h heldKey) time.Time { return h.made })
	k.derived[id] = heldKey{key: key, made: now}
	return key
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

// evictOldest makes room for one more entry in a full index: the oldest
// goes (a scan, rare next to the derivation that follows it).
func evictOldest[V any](m map[[32]byte]V, made func(V) time.Time) {
	if len(m) < maxKeys {
		return
	}
	var oldest [32]byte
	var at time.Time
	for id, v := range m {
		if t := made(v); at.IsZero() || t.Before(at) {
			oldest, at = id, t
		}
	}
	delete(m, oldest)
}
