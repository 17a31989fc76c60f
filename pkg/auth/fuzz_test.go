package auth

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"strconv"
	"testing"

	"sharedworld.dev/pkg/problem"
)

// The credential parsers read attacker-chosen bytes before anything is
// verified: whatever they get, they answer a value or a 401, never panic,
// and what they accept is well formed. The committed corpus under
// testdata/fuzz runs with every go test; go test -fuzz explores further.

func FuzzParseSignatureHeader(f *testing.F) {
	_, key, _ := ed25519.GenerateKey(nil)
	f.Add(SignRequest(key, "GET", "/x", 1700000000, nil))
	f.Add(SignRequestNonce(key, "POST", "/y?a=1", 1700000000, []byte(`{}`), "n0nce_-"))
	f.Add("t=1,sig=")
	f.Add("t=,n=,sig=,")
	f.Fuzz(func(t *testing.T, h string) {
		rs, err := ParseSignatureHeader(h)
		if err != nil {
			if !problem.IsKind(err, problem.KindUnauthenticated) {
				t.Fatalf("%q: a refusal must be 401, got %v", h, err)
			}
			return
		}
		if len(rs.Sig) != ed25519.SignatureSize || (rs.Nonce != "" && !validNonce(rs.Nonce)) {
			t.Fatalf("%q accepted as %+v", h, rs)
		}
		// What was accepted says the same when written out again.
		again := "t=" + strconv.FormatInt(rs.T, 10) + ",sig=" + encodeStd(rs.Sig)
		if rs.Nonce != "" {
			again += ",n=" + rs.Nonce
		}
		back, err := ParseSignatureHeader(again)
		if err != nil || back.T != rs.T || back.Nonce != rs.Nonce || !bytes.Equal(back.Sig, rs.Sig) {
			t.Fatalf("%q parsed as %+v, written out as %q, read back as %+v (%v)", h, rs, again, back, err)
		}
	})
}

func FuzzCredentialsInBody(f *testing.F) {
	f.Add([]byte(`{"agent_id":"emb_000000000000000000000000","embassy_certificate":{"agent_id":"emb_000000000000000000000000"}}`))
	f.Add([]byte(`{"agent_id":"a","certificate":"eyJhIjoxfQ=="}`))
	f.Add([]byte(`{"agent_id":7}`))
	f.Add([]byte(`{"embassy_artifact":[1]}`))
	f.Add([]byte(` {"agent_id":null,"embassy_certificate":null} `))
	f.Add([]byte(`[{"agent_id":"x"}]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		id, cert, err := credentialsInBody(body)
		if err != nil {
			if !problem.IsKind(err, problem.KindUnauthenticated) {
				t.Fatalf("%q: a refusal must be 401, got %v", body, err)
			}
			return
		}
		if id == "" && cert == nil {
			return
		}
		// Credentials come only from a JSON object.
		var obj map[string]json.RawMessage
		if json.Unmarshal(body, &obj) != nil {
			t.Fatalf("%q is no JSON object, yet gave agent_id %q and certificate %q", body, id, cert)
		}
	})
}
