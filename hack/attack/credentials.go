package attack

import (
	"crypto/ed25519"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"time"

	"sharedworld.dev/pkg/auth"
)

// Credentials is the credentials edge cases and the certificate attacks around them:
// every request below must be refused with 401 (or 403 where a known
// caller is not allowed), never answered as if it were someone's. issuer,
// when known (a world whose database the run owns), signs an expired
// certificate the provider's key really signed.
func Credentials(w *World, issuer *auth.Issuer) *Category {
	cat := &Category{Name: "credentials"}
	ada, err := w.NewCitizen(cat, "Cred")
	if err != nil {
		cat.Note("no citizen: %v", err)
		return cat
	}
	bob, err := w.NewCitizen(cat, "Other")
	if err != nil {
		cat.Note("no citizen: %v", err)
		return cat
	}
	who := func(h http.Header, why string) {
		cat.Refused(w.Send(cat, "GET", "/api/world/whoami", nil, h), why, 401, "unauthenticated")
	}
	who(http.Header{"X-Agent-Certificate": {ada.Cert}}, "whoami with only a certificate")
	who(http.Header{"X-Agent-Id": {ada.ID}}, "whoami with only an agent id")
	who(http.Header{"X-Agent-Id": {bob.ID}, "X-Agent-Certificate": {ada.Cert}}, "whoami with another agent's id")
	who(http.Header{"X-Agent-Id": {ada.ID[:len(ada.ID)-4]}, "X-Agent-Certificate": {ada.Cert}}, "whoami with a truncated id")
	who(http.Header{"X-Agent-Id": {ada.ID}, "X-Agent-Certificate": {"{}"}}, "whoami with an empty certificate")
	who(http.Header{"X-Agent-Id": {ada.ID}, "X-Agent-Certificate": {"not json"}}, "whoami with a certificate that is not JSON")
	cat.Want(w.Send(cat, "GET", "/api/world/whoami", nil, ada.Headers()), "whoami with both", 200)

	// Certificates nobody's provider signed, or signed for something else.
	forger := auth.Issuer{Name: "shared-world-dev-idp", Kid: "dev-1", Key: newKey()}
	id, cert, _ := forger.Issue("Forged", newKey().Public().(ed25519.PublicKey), time.Now(), nil)
	who(http.Header{"X-Agent-Id": {id}, "X-Agent-Certificate": {string(cert)}}, "a certificate signed by another key")
	_, cert, _ = forger.Issue("Forged", newKey().Public().(ed25519.PublicKey), time.Now(), map[string]any{"agent_id": ada.ID})
	who(http.Header{"X-Agent-Id": {ada.ID}, "X-Agent-Certificate": {string(cert)}}, "a forged certificate for a real agent id")
	for field, value := range map[string]any{"agent_name": "Mallory", "public_key": "AAAA", "kid": "dev-2", "expires_at": "2000-01-01T00:00:00Z", "signature": "AAAA"} {
		who(http.Header{"X-Agent-Id": {ada.ID}, "X-Agent-Certificate": {tamper(ada.Cert, field, value)}}, "a certificate with "+field+" changed")
	}
	if issuer != nil {
		pub := ada.Key.Public().(ed25519.PublicKey)
		id, cert, _ := issuer.Issue("Expired", pub, time.Now().Add(-48*time.Hour), map[string]any{"expires_at": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)})
		r := w.Send(cat, "GET", "/api/world/whoami", nil, http.Header{"X-Agent-Id": {id}, "X-Agent-Certificate": {string(cert)}})
		if cat.Refused(r, "an expired certificate the provider signed", 401, "unauthenticated") {
			// the same key, not expired: the refusal was the expiry.
			id, cert, _ = issuer.Issue("Fresh", pub, time.Now(), nil)
			cat.Want(w.Send(cat, "GET", "/api/world/whoami", nil, http.Header{"X-Agent-Id": {id}, "X-Agent-Certificate": {string(cert)}}), "a fresh certificate the provider signed", 200)
		}
	} else {
		cat.Note("expired certificate not tried: the provider's key is out of reach (a world given by -url)")
	}

	// Body credentials of another agent beside the headers.
	mixed := map[string]any{"agent_id": bob.ID, "certificate": json.RawMessage(bob.Cert), "bio": "x"}
	cat.Refused(w.JSON(cat, "PUT", "/api/world/profile", mixed, ada.Headers()), "headers of one agent, body credentials of another", 401, "unauthenticated")

	// /dev/idp/revoke: its agent_id names the agent to revoke, not the caller.
	cat.Refused(w.JSON(cat, "POST", "/dev/idp/revoke", map[string]any{"agent_id": ada.ID}, nil), "revoke with agent_id and no credentials", 401, "unauthenticated")
	cat.Refused(w.JSON(cat, "POST", "/dev/idp/revoke", map[string]any{"agent_id": ada.ID}, bob.Headers()), "revoke another agent", 403, "permission_denied")
	cat.Refused(w.JSON(cat, "POST", "/dev/idp/revoke", map[string]any{"agent_id": ada.ID, "certificate": json.RawMessage(ada.Cert)}, nil),
		"revoke with the certificate in the body only", 401, "unauthenticated")

	privatePlot(w, cat, ada, bob)
	revoked(w, cat)
	return cat
}

// privatePlot: reads of a plot that is not public: no credentials is 401,
// a known caller who is not allowed is 403, the owner reads.
func privatePlot(w *World, cat *Category, owner, other Agent) {
	var plot string
	for try := 0; try < 20 && plot == ""; try++ {
		r := w.JSON(cat, "POST", "/api/world/plots/claim", map[string]any{"x": 1 + rand.IntN(998), "y": 1 + rand.IntN(998)}, owner.Headers())
		if r.Status == 201 || r.Status == 200 {
			if p, ok := r.JSON["plot"].(map[string]any); ok {
				plot, _ = p["plot_id"].(string)
			}
			if plot == "" {
				plot = r.Str("plot_id")
			}
		}
	}
	if plot == "" {
		cat.Note("no plot claimed: the private plot's reads not tried")
		return
	}
	cat.Want(w.JSON(cat, "POST", "/api/world/storage/write", map[string]any{"plot_id": plot, "path": "/notes/secret.md", "content": "c2VjcmV0"}, owner.Headers()), "the owner writes", 201)
	reads := []struct{ method, path string }{
		{"GET", "/api/world/storage/read?plot_id=" + plot + "&path=/notes/secret.md"},
		{"POST", "/api/world/storage/read"},
		{"GET", "/api/world/storage/list?plot_id=" + plot},
	}
	body := []byte(`{"plot_id":"` + plot + `","path":"/notes/secret.md"}`)
	for _, rd := range reads {
		var b []byte
		if rd.method == "POST" {
			b = body
		}
		cat.Refused(w.Send(cat, rd.method, rd.path, b, nil), "an anonymous read of a plot that is not public", 401, "unauthenticated")
		cat.Refused(w.Send(cat, rd.method, rd.path, b, other.Headers()), "another citizen reads a plot that is not public", 403, "permission_denied")
		cat.Want(w.Send(cat, rd.method, rd.path, b, owner.Headers()), "the owner reads its plot", 200)
	}
	cat.Refused(w.Send(cat, "GET", "/api/world/plots/"+plot+"/permissions", nil, nil), "anonymous permissions", 401, "")
	cat.Refused(w.Send(cat, "GET", "/api/world/plots/"+plot+"/permissions", nil, other.Headers()), "another citizen's permissions", 403, "")
}

// revoked: an agent revokes its own certificate; from then on it is 401.
func revoked(w *World, cat *Category) {
	eve, err := w.NewCitizen(cat, "Revoked")
	if err != nil {
		cat.Note("no citizen: %v", err)
		return
	}
	if !cat.Want(w.JSON(cat, "POST", "/dev/idp/revoke", map[string]any{"agent_id": eve.ID}, eve.Headers()), "an agent revokes itself", 200) {
		return
	}
	cat.Refused(w.Send(cat, "GET", "/api/world/whoami", nil, eve.Headers()), "whoami with a revoked certificate", 401, "")
	cat.Refused(w.JSON(cat, "PUT", "/api/world/profile", map[string]any{"bio": "still here"}, eve.Headers()), "a write with a revoked certificate", 401, "")
}

func newKey() ed25519.PrivateKey { _, k, _ := ed25519.GenerateKey(nil); return k }

// tamper changes one field of a certificate and keeps its signature.
func tamper(cert, field string, value any) string {
	var doc map[string]any
	_ = json.Unmarshal([]byte(cert), &doc)
	doc[field] = value
	b, _ := json.Marshal(doc)
	return string(b)
}
