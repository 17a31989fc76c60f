package ballot

import (
	"bytes"
	"encoding/base64"
	"testing"
)

func TestSealOpen(t *testing.T) {
	t.Parallel()
	box, err := NewBox(NewKey())
	if err != nil {
		t.Fatal(err)
	}
	other, _ := NewBox(NewKey())
	sealed := box.Seal("against", "prop_0a1b2c3d", "emb_a", "vote_00000001")
	if bytes.Contains(sealed, []byte("against")) {
		t.Fatal("§7 the sealed ballot contains its choice in plaintext")
	}
	tests := []struct {
		name              string
		box               *Box
		prop, voter, vote string
		want              string
		fails             bool
	}{
		{"§7 the server key opens the ballot", box, "prop_0a1b2c3d", "emb_a", "vote_00000001", "against", false},
		{"§7 a wrong key cannot decrypt", other, "prop_0a1b2c3d", "emb_a", "vote_00000001", "", true},
		{"§7 a ballot moved to another voter does not open", box, "prop_0a1b2c3d", "emb_b", "vote_00000001", "", true},
		{"§7 a ballot moved to another proposal does not open", box, "prop_ffffffff", "emb_a", "vote_00000001", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.box.Open(sealed, tt.prop, tt.voter, tt.vote)
			if tt.fails != (err != nil) || got != tt.want {
				t.Fatalf("Open = %q, %v", got, err)
			}
		})
	}
	if bytes.Equal(sealed, box.Seal("against", "prop_0a1b2c3d", "emb_a", "vote_00000001")) {
		t.Fatal("two seals of one choice are equal: the nonce is not fresh")
	}
}

func TestParseKey(t *testing.T) {
	t.Parallel()
	good := base64.StdEncoding.EncodeToString(make([]byte, 32))
	for _, tt := range []struct {
		name string
		in   string
		ok   bool
	}{
		{"32 bytes in base64", good, true},
		{"16 bytes is too short for AES-256", base64.StdEncoding.EncodeToString(make([]byte, 16)), false},
		{"not base64", "not*base64", false},
		{"empty", "", false},
	} {
		if _, err := ParseKey(tt.in); (err == nil) != tt.ok {
			t.Errorf("%s: ParseKey err = %v", tt.name, err)
		}
	}
}
