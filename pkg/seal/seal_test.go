package seal

import (
	"bytes"
	"errors"
	"testing"

	"sharedworld.dev/pkg/problem"
)

// cheap keeps the tests quick; the cost parameters do not change the logic.
var cheap = New(Params{Time: 1, MemoryKiB: 64, Threads: 1})

func TestSealOpens(t *testing.T) {
	t.Parallel()
	plain := []byte("remember the garden")
	aad := []byte("backup-1|emb_000000000000000000000001")
	s, err := cheap.Seal(plain, "correct horse", aad)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(s.Ciphertext, plain) {
		t.Fatal("§4 continuity: ciphertext carries the plaintext")
	}
	got, err := Open(s, "correct horse", aad)
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("§4 continuity: round trip failed: %q, %v", got, err)
	}
}

func TestOpenRefuses(t *testing.T) {
	t.Parallel()
	aad := []byte("backup-1|owner")
	s, err := cheap.Seal([]byte("secret"), "key-one", aad)
	if err != nil {
		t.Fatal(err)
	}
	tampered := s
	tampered.Ciphertext = bytes.Clone(s.Ciphertext)
	tampered.Ciphertext[0] ^= 1
	cases := []struct {
		name   string
		sealed Sealed
		key    string
		aad    []byte
	}{
		{"§4 continuity: a wrong key is permission_denied", s, "key-two", aad},
		{"§4 continuity: a key differing in case", s, "KEY-ONE", aad},
		{"§4 continuity: another backup's context", s, "key-one", []byte("backup-2|owner")},
		{"§4 continuity: a tampered ciphertext", tampered, "key-one", aad},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Open(tc.sealed, tc.key, tc.aad)
			if !errors.Is(err, ErrWrongKey) || !problem.IsKind(err, problem.KindPermission) {
				t.Fatalf("want ErrWrongKey (403), got %v", err)
			}
		})
	}
}

func TestSealIsRandomised(t *testing.T) {
	t.Parallel()
	a, _ := cheap.Seal([]byte("same"), "same", nil)
	b, _ := cheap.Seal([]byte("same"), "same", nil)
	if bytes.Equal(a.Salt, b.Salt) || bytes.Equal(a.Nonce, b.Nonce) || bytes.Equal(a.Ciphertext, b.Ciphertext) {
		t.Fatal("§4 continuity: salt, nonce and ciphertext must differ between seals")
	}
	if len(a.Salt) != saltLen || len(a.Nonce) != nonceLen {
		t.Fatalf("salt %d bytes, nonce %d bytes", len(a.Salt), len(a.Nonce))
	}
}

func TestSealRecordsItsParams(t *testing.T) {
	t.Parallel()
	// A record sealed with other costs still opens: the costs travel with it.
	strong := New(Params{Time: 2, MemoryKiB: 128, Threads: 2})
	s, err := strong.Seal([]byte("x"), "k", nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.KDF != KDFArgon2id || s.Params != (Params{Time: 2, MemoryKiB: 128, Threads: 2}) {
		t.Fatalf("record carries %q %+v", s.KDF, s.Params)
	}
	if got, err := Open(s, "k", nil); err != nil || string(got) != "x" {
		t.Fatalf("open: %q %v", got, err)
	}
	if New(Params{}).params != DefaultParams {
		t.Fatal("zero params must take the defaults")
	}
}

func TestOpenRejectsMalformedRecords(t *testing.T) {
	t.Parallel()
	s, _ := cheap.Seal([]byte("x"), "k", nil)
	bad := []Sealed{
		{KDF: "scrypt", Params: s.Params, Salt: s.Salt, Nonce: s.Nonce, Ciphertext: s.Ciphertext},
		{KDF: s.KDF, Params: s.Params, Salt: s.Salt[:4], Nonce: s.Nonce, Ciphertext: s.Ciphertext},
		{KDF: s.KDF, Params: Params{}, Salt: s.Salt, Nonce: s.Nonce, Ciphertext: s.Ciphertext},
	}
	for i, b := range bad {
		if _, err := Open(b, "k", nil); err == nil || errors.Is(err, ErrWrongKey) {
			t.Errorf("record %d: want a malformed-record error, got %v", i, err)
		}
	}
}

func BenchmarkSealDefaultParams(b *testing.B) {
	s := New(DefaultParams)
	plain := make([]byte, 4096)
	for b.Loop() {
		if _, err := s.Seal(plain, "passphrase", nil); err != nil {
			b.Fatal(err)
		}
	}
}
