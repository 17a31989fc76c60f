// Package seal encrypts a record with a key the caller brings and the service
// never keeps (continuity backups, CONTRACT §4; direct messages, §8):
// Argon2id stretches the passphrase with a random salt into an AES-256 key,
// AES-GCM seals the content, bound to the record's id through the additional
// data. Neither the passphrase nor the derived key is stored; only what is
// needed to derive it again (the salt and the cost parameters) travels with
// the ciphertext. A Sealer given Keys holds derived keys in memory for a
// while (direct messages: see Keys).
package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"

	"golang.org/x/crypto/argon2"

	"sharedworld.dev/pkg/problem"
)

// KDFArgon2id names the key derivation in sealed records, so that a later
// change of algorithm can still open old backups.
const KDFArgon2id = "argon2id"

const (
	keyLen   = 32 // AES-256
	saltLen  = 16
	nonceLen = 12 // the GCM standard nonce
)

// Params are the Argon2id costs. They are stored with each backup, so they
// can be raised later without breaking restores.
type Params struct {
	Time      uint32
	MemoryKiB uint32
	Threads   uint8
}

// DefaultParams follow the OWASP minimum for Argon2id (19 MiB, 2 passes, 1
// lane): one lane because the service shares few cores between many
// requests, and memory kept modest because several backups may be sealed at
// once.
var DefaultParams = Params{Time: 2, MemoryKiB: 19 * 1024, Threads: 1}

// Sealed is an encrypted backup and what is needed to open it again.
type Sealed struct {
	KDF        string
	Params     Params
	Salt       []byte
	Nonce      []byte
	Ciphertext []byte // includes the GCM tag
}

// ErrWrongKey is returned when the passphrase does not open the record; GCM
// cannot tell a wrong key from tampering, and neither needs to be told apart.
var ErrWrongKey = problem.Permission("the encryption key does not open this backup",
	"send the same encryption_key that was used for the backup")

// Sealer seals with fixed cost parameters, and holds derived keys a while
// when given Keys.
type Sealer struct {
	params Params
	keys   *Keys
}

// WithKeys is s holding its derived keys in k (see Keys).
func (s Sealer) WithKeys(k *Keys) Sealer {
	s.keys = k
	return s
}

// New returns a sealer with the given costs; zero fields take the defaults.
func New(p Params) Sealer {
	if p.Time == 0 {
		p.Time = DefaultParams.Time
	}
	if p.MemoryKiB == 0 {
		p.MemoryKiB = DefaultParams.MemoryKiB
	}
	if p.Threads == 0 {
		p.Threads = DefaultParams.Threads
	}
	return Sealer{params: p}
}

// Seal encrypts plaintext under passphrase. aad binds the ciphertext to its
// context (backup id and owner), so a record moved to another backup or
// citizen no longer opens.
func (s Sealer) Seal(plaintext []byte, passphrase string, aad []byte) (Sealed, error) {
	var salt, key []byte
	if s.keys != nil {
		salt, key = s.keys.forSealing(passphrase, s.params)
	} else {
		salt = make([]byte, saltLen)
		_, _ = rand.Read(salt) // crypto/rand.Read never fails (Go ≥ 1.24)
		key = derive(passphrase, salt, s.params)
	}
	nonce := make([]byte, nonceLen)
	_, _ = rand.Read(nonce)
	aead, err := newAEAD(key)
	if err != nil {
		return Sealed{}, err
	}
	return Sealed{
		KDF:        KDFArgon2id,
		Params:     s.params,
		Salt:       salt,
		Nonce:      nonce,
		Ciphertext: aead.Seal(nil, nonce, plaintext, aad),
	}, nil
}

// Open decrypts a sealed record; a wrong passphrase (or aad) is ErrWrongKey.
func Open(s Sealed, passphrase string, aad []byte) ([]byte, error) {
	return Sealer{}.Open(s, passphrase, aad)
}

// Open is the package's Open, with the key from s's Keys when it holds it.
func (sl Sealer) Open(s Sealed, passphrase string, aad []byte) ([]byte, error) {
	if s.KDF != KDFArgon2id {
		return nil, fmt.Errorf("seal: unknown key derivation %q", s.KDF)
	}
	if len(s.Salt) != saltLen || len(s.Nonce) != nonceLen || s.Params.Time == 0 ||
		s.Params.MemoryKiB == 0 || s.Params.Threads == 0 {
		return nil, errors.New("seal: malformed sealed record")
	}
	var key []byte
	if sl.keys != nil {
		key = sl.keys.forOpening(passphrase, s.Salt, s.Params)
	} else {
		key = derive(passphrase, s.Salt, s.Params)
	}
	aead, err := newAEAD(key)
	if err != nil {
		return nil, err
	}
	plain, err := aead.Open(nil, s.Nonce, s.Ciphertext, aad)
	if err != nil {
		return nil, ErrWrongKey
	}
	return plain, nil
}

// derivations counts the Argon2id derivations made (for the tests).
var derivations atomic.Int64

// deriving bounds the derivations running at once to one fewer than the
// process's cores (at least one). Each holds a core for tens of
// milliseconds and its memory cost; two at once on two cores stalled every
// other request of the process behind them, so one core stays for those.
var deriving = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)-1))

// derivingNow and derivingPeak count the derivations running and the most
// seen running at once (for the tests).
var derivingNow, derivingPeak atomic.Int64

func derive(passphrase string, salt []byte, p Params) []byte {
	deriving <- struct{}{}
	defer func() { <-deriving }()
	derivations.Add(1)
	notePeak(derivingNow.Add(1))
	defer derivingNow.Add(-1)
	return argon2.IDKey([]byte(passphrase), salt, p.Time, p.MemoryKiB, p.Threads, keyLen)
}

func notePeak(n int64) {
	for {
		peak := derivingPeak.Load()
		if n <= peak || derivingPeak.CompareAndSwap(peak, n) {
			return
		}
	}
}

func newAEAD(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	return cipher.NewGCM(block)
}
