package seal

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

// cheapKeys is a sealer holding its keys in k, on a clock the test moves.
func cheapKeys() (Sealer, *Keys, *time.Time) {
	k := NewKeys()
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	k.now = func() time.Time { return now }
	return cheap.WithKeys(k), k, &now
}

// Records sealed under one passphrase within KeyReuse share one salt and
// one derivation; opening them derives nothing more; another passphrase
// has its own salt and never opens them; after KeyReuse a new salt is
// drawn. (Not parallel: it counts the package's derivations.)
func TestKeysDeriveOncePerPassphraseAndWindow(t *testing.T) {
	s, _, now := cheapKeys()
	before := derivations.Load()
	var sealed []Sealed
	for i := range 20 {
		r, err := s.Seal([]byte(fmt.Sprint("letter ", i)), "shared key", []byte(fmt.Sprint("msg", i)))
		if err != nil {
			t.Fatal(err)
		}
		sealed = append(sealed, r)
	}
	for i, r := range sealed {
		if !bytes.Equal(r.Salt, sealed[0].Salt) {
			t.Fatalf("record %d has a salt of its own within the reuse window", i)
		}
		if i > 0 && bytes.Equal(r.Nonce, sealed[0].Nonce) {
			t.Fatalf("record %d repeats record 0's nonce under the same key", i)
		}
		got, err := s.Open(r, "shared key", []byte(fmt.Sprint("msg", i)))
		if err != nil || string(got) != fmt.Sprint("letter ", i) {
			t.Fatalf("record %d: %q, %v", i, got, err)
		}
		if _, err := s.Open(r, "another key", []byte(fmt.Sprint("msg", i))); !errors.Is(err, ErrWrongKey) {
			t.Fatalf("record %d opened with another passphrase: %v", i, err)
		}
	}
	// one for sealing and opening all 20, one for the wrong passphrase
	if n := derivations.Load() - before; n != 2 {
		t.Fatalf("%d derivations for 20 records under one passphrase (and one wrong try); want 2", n)
	}
	// a process without the keys opens them too (the salt travels with each)
	if got, err := Open(sealed[7], "shared key", []byte("msg7")); err != nil || string(got) != "letter 7" {
		t.Fatalf("opened without the cache: %q, %v", got, err)
	}
	other, err := s.Seal([]byte("x"), "another key", nil)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(other.Salt, sealed[0].Salt) {
		t.Fatal("two passphrases share a salt")
	}
	*now = now.Add(KeyReuse)
	later, err := s.Seal([]byte("y"), "shared key", nil)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(later.Salt, sealed[0].Salt) {
		t.Fatal("a salt sealed past the reuse window")
	}
}

// The cache never holds more than maxKeys keys in either index, dropping
// the oldest first.
func TestKeysAreBounded(t *testing.T) {
	s, k, now := cheapKeys()
	tiny := s
	tiny.params = Params{Time: 1, MemoryKiB: 8, Threads: 1}
	for i := range maxKeys + 10 {
		*now = now.Add(time.Millisecond)
		if _, err := tiny.Seal([]byte("x"), fmt.Sprint("pass ", i), nil); err != nil {
			t.Fatal(err)
		}
	}
	if len(k.sealing) > maxKeys || len(k.derived) > maxKeys {
		t.Fatalf("holding %d sealing and %d derived keys; at most %d each", len(k.sealing), len(k.derived), maxKeys)
	}
	if _, ok := k.sealing[k.index("pass 0", nil, tiny.params)]; ok {
		t.Fatal("the oldest passphrase's key is still held")
	}
	if _, ok := k.sealing[k.index(fmt.Sprint("pass ", maxKeys+9), nil, tiny.params)]; !ok {
		t.Fatal("the newest passphrase's key was dropped")
	}
}

// BenchmarkSealMessagesOneKey: a citizen's direct messages under one
// encryption_key at the default cost, with and without held keys.
func BenchmarkSealMessagesOneKey(b *testing.B) {
	for _, held := range []bool{false, true} {
		b.Run(fmt.Sprint("held=", held), func(b *testing.B) {
			s := New(DefaultParams)
			if held {
				s = s.WithKeys(NewKeys())
			}
			for b.Loop() {
				if _, err := s.Seal([]byte("a letter of a few hundred bytes"), "shared key", []byte("msg")); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Derivations run at most one core short of the process's cores at once,
// however many seals are asked for together, so the other requests of the
// process keep a core. (Not parallel: it reads the package's counters.)
func TestDerivationsLeaveACoreFree(t *testing.T) {
	derivingPeak.Store(0)
	slow := New(Params{Time: 1, MemoryKiB: 4096, Threads: 1}) // long enough to overlap
	var wg sync.WaitGroup
	for i := range 4 * cap(deriving) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := slow.Seal([]byte("letter"), fmt.Sprintf("passphrase-%d", i), nil); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	want := int64(max(1, runtime.GOMAXPROCS(0)-1))
	if peak := derivingPeak.Load(); peak < 1 || peak > want {
		t.Fatalf("%d derivations ran at once on %d cores, want 1 to %d", peak, runtime.GOMAXPROCS(0), want)
	}
}
