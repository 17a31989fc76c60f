package attack

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Used is a signed request a world accepted, kept to be replayed.
type Used struct {
	Method, Path string
	Body         []byte
	Header       http.Header
}

// signedProfile is a signed PUT /api/world/profile: a write any citizen can
// repeat, whose acceptance shows.
func signedProfile(a Agent, bio, nonce string, t int64) Used {
	body, _ := json.Marshal(map[string]any{"bio": bio})
	const path = "/api/world/profile"
	return Used{Method: "PUT", Path: path, Body: body, Header: a.Signed("PUT", path, body, t, nonce)}
}

func (w *World) replay(cat *Category, u Used) Reply {
	return w.Send(cat, u.Method, u.Path, u.Body, u.Header)
}

// Sign sends a fresh signed request as a, which the world must accept, and
// returns it for a later replay.
func Sign(w *World, cat *Category, a Agent) (Used, bool) {
	u := signedProfile(a, "signed "+Nonce(), Nonce(), time.Now().Unix())
	return u, cat.Want(w.replay(cat, u), "a fresh signed request", 200)
}

// Replayed checks that a signature accepted before (on this process, on
// another replica, or before a restart: where says which) is refused.
func Replayed(w *World, cat *Category, u Used, where string) {
	r := w.replay(cat, u)
	if cat.Refused(r, "a used signature replayed "+where, 401, "unauthenticated") && !strings.Contains(r.Str("hint"), "n=") {
		cat.Flag(r, "the replay's hint does not mention the nonce (n=)")
	}
}

// Replay checks signature replay on one world or two replicas of it (b nil: one):
// a signature is accepted once, by every replica, also when both get it at
// the same moment; two identical requests in one second with different
// nonces are both accepted; bad signatures are refused.
func Replay(a, b *World) *Category {
	cat := &Category{Name: "replay"}
	ada, err := a.NewCitizen(cat, "Signer")
	if err != nil {
		cat.Note("no citizen: %v", err)
		return cat
	}
	if u, ok := Sign(a, cat, ada); ok {
		Replayed(a, cat, u, "on the same process")
		if b != nil {
			Replayed(b, cat, u, "on the other replica")
		}
	}
	// The same second, the same body, different nonces: both accepted.
	t := time.Now().Unix()
	for _, n := range []string{Nonce(), Nonce()} {
		cat.Want(a.replay(cat, signedProfile(ada, "same", n, t)), "an identical request with a nonce of its own", 200)
	}
	// Without a nonce the second identical one is a replay, and its hint
	// says how to tell them apart.
	u := signedProfile(ada, "same-no-nonce", "", t)
	cat.Want(a.replay(cat, u), "a signed request without a nonce", 200)
	Replayed(a, cat, u, "(identical, same second, no nonce)")

	bad := []struct {
		what string
		h    http.Header
		body []byte
	}{
		{"a signature over another body", ada.Signed("PUT", "/api/world/profile", []byte(`{"bio":"a"}`), time.Now().Unix(), Nonce()), []byte(`{"bio":"b"}`)},
		{"a signature 400 s old", ada.Signed("PUT", "/api/world/profile", []byte(`{"bio":"a"}`), time.Now().Unix()-400, Nonce()), []byte(`{"bio":"a"}`)},
		{"a signature from the future", ada.Signed("PUT", "/api/world/profile", []byte(`{"bio":"a"}`), time.Now().Unix()+400, Nonce()), []byte(`{"bio":"a"}`)},
		{"a signature over another path", ada.Signed("PUT", "/api/world/profile?x=1", []byte(`{"bio":"a"}`), time.Now().Unix(), Nonce()), []byte(`{"bio":"a"}`)},
	}
	for _, h := range []string{"t=1", "sig=AAAA", "t=x,sig=AAAA", "t=1,n=bad nonce!,sig=AAAA", "garbage", "t=1,n=" + strings.Repeat("a", 65) + ",sig=AAAA"} {
		hh := ada.Headers()
		hh.Set("X-Agent-Signature", h)
		bad = append(bad, struct {
			what string
			h    http.Header
			body []byte
		}{"a malformed signature header " + h[:min(len(h), 20)], hh, []byte(`{"bio":"a"}`)})
	}
	other, err := a.NewAgent(cat, "Stranger")
	if err == nil {
		// A valid signature by another agent's key over ada's credentials.
		h := other.Signed("PUT", "/api/world/profile", []byte(`{"bio":"a"}`), time.Now().Unix(), Nonce())
		h.Set("X-Agent-Id", ada.ID)
		h.Set("X-Agent-Certificate", ada.Cert)
		bad = append(bad, struct {
			what string
			h    http.Header
			body []byte
		}{"a signature by another agent's key", h, []byte(`{"bio":"a"}`)})
	}
	for _, x := range bad {
		cat.Refused(a.Send(cat, "PUT", "/api/world/profile", x.body, x.h), x.what, 401, "unauthenticated")
	}
	if b != nil {
		race(a, b, cat, ada)
	}
	return cat
}

// race sends one signed request to both replicas at the same moment, many
// times: exactly one of each pair is accepted.
func race(a, b *World, cat *Category, ada Agent) {
	for i := 0; i < 20; i++ {
		u := signedProfile(ada, "race", Nonce(), time.Now().Unix())
		var replies [2]Reply
		var wg sync.WaitGroup
		start := make(chan struct{})
		for j, w := range []*World{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				replies[j] = w.replay(cat, u)
			}()
		}
		close(start)
		wg.Wait()
		ok := 0
		for _, r := range replies {
			switch {
			case r.Status == 200:
				ok++
			case r.Status != 401:
				cat.Flag(r, "a signature raced on two replicas: want 200 or 401")
			}
		}
		if ok != 1 {
			cat.Flag(replies[0], "a signature sent to two replicas at once was accepted %d times, want once (other: %d)", ok, replies[1].Status)
		}
	}
}
