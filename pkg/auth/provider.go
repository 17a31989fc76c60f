package auth

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Key is one provider signing key.
type Key struct {
	Kid       string `json:"kid"`
	PublicKey string `json:"public_key"`
}

// Revocation is one revoked agent.
type Revocation struct {
	AgentID   string    `json:"agent_id"`
	RevokedAt time.Time `json:"revoked_at"`
}

// Provider is what the verifier needs from an identity provider: its keys and
// its revocation list. The development provider implements it in process;
// HTTPProvider reads a real provider's documents.
type Provider interface {
	Keys(ctx context.Context) ([]Key, error)
	Revocations(ctx context.Context) ([]Revocation, error)
}

// StaticProvider is a provider with configured keys and no revocations source.
type StaticProvider struct{ KeyList []Key }

// Keys returns the configured keys.
func (s StaticProvider) Keys(context.Context) ([]Key, error) { return s.KeyList, nil }

// Revocations returns nothing: configured keys carry no revocation list.
func (s StaticProvider) Revocations(context.Context) ([]Revocation, error) { return nil, nil }

// HTTPProvider fetches `{keys: [...]}` and `{revoked: [...]}` documents.
type HTTPProvider struct {
	KeysURL        string
	RevocationsURL string
	Client         *http.Client
}

func (h HTTPProvider) get(ctx context.Context, url string, v any) error {
	client := h.Client
	if client == nil {
		client = &http.Client{Timeout: 5 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("fetch %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("fetch %s: status %d", url, resp.StatusCode)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// Keys fetches the provider's key document.
func (h HTTPProvider) Keys(ctx context.Context) ([]Key, error) {
	if h.KeysURL == "" {
		return nil, nil
	}
	var doc struct {
		Keys []Key `json:"keys"`
	}
	err := h.get(ctx, h.KeysURL, &doc)
	return doc.Keys, err
}

// Revocations fetches the provider's revocation list.
func (h HTTPProvider) Revocations(ctx context.Context) ([]Revocation, error) {
	if h.RevocationsURL == "" {
		return nil, nil
	}
	var doc struct {
		Revoked []Revocation `json:"revoked"`
	}
	err := h.get(ctx, h.RevocationsURL, &doc)
	return doc.Revoked, err
}

// Providers combines several providers (configured keys plus fetched ones).
type Providers []Provider

// Keys returns every provider's keys; one failing provider does not hide the others.
func (ps Providers) Keys(ctx context.Context) ([]Key, error) {
	var all []Key
	var firstErr error
	for _, p := range ps {
		ks, err := p.Keys(ctx)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		all = append(all, ks...)
	}
	if len(all) > 0 {
		return all, nil
	}
	return nil, firstErr
}

// Revocations returns the union of every provider's list.
func (ps Providers) Revocations(ctx context.Context) ([]Revocation, error) {
	var all []Revocation
	for _, p := range ps {
		rs, err := p.Revocations(ctx)
		if err != nil {
			return nil, err
		}
		all = append(all, rs...)
	}
	return all, nil
}

// keyCache holds provider keys by kid; an unknown kid triggers a refetch at
// most once per minRefetch, so a forged kid cannot hammer the provider. A
// failed fetch keeps the keys held before.
type keyCache struct {
	provider   Provider
	minRefetch time.Duration
	// fetched, when set, hears every fetch's outcome: the keys held after
	// it, its error, and the error of the fetch before (the verifier logs
	// and counts from it).
	fetched func(held int, err, prev error)

	mu        sync.RWMutex
	keys      map[string]ed25519.PublicKey
	fetchedAt time.Time
	lastErr   error // of the last fetch
}

func (k *keyCache) lookup(ctx context.Context, kid string) (ed25519.PublicKey, bool) {
	k.mu.RLock()
	key, ok := k.keys[kid]
	fresh := time.Since(k.fetchedAt) < k.minRefetch
	k.mu.RUnlock()
	if ok || fresh {
		return key, ok
	}
	_ = k.refresh(ctx)
	k.mu.RLock()
	defer k.mu.RUnlock()
	key, ok = k.keys[kid]
	return key, ok
}

func (k *keyCache) refresh(ctx context.Context) error {
	list, err := k.provider.Keys(ctx)
	k.mu.Lock()
	k.fetchedAt = time.Now()
	prev := k.lastErr
	k.lastErr = err
	if err == nil {
		keys := make(map[string]ed25519.PublicKey, len(list))
		for _, key := range list {
			b, derr := decodeBase64(key.PublicKey)
			if derr == nil && len(b) == ed25519.PublicKeySize {
				keys[key.Kid] = ed25519.PublicKey(b)
			}
		}
		k.keys = keys
	}
	held := len(k.keys)
	k.mu.Unlock()
	if k.fetched != nil {
		k.fetched(held, err, prev)
	}
	return err
}

// state is the number of keys held and the last fetch's error.
func (k *keyCache) state() (int, error) {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return len(k.keys), k.lastErr
}

// revocationList is the provider's list, refreshed in the background.
type revocationList struct {
	provider Provider

	mu        sync.RWMutex
	revoked   map[string]time.Time
	fetchedAt time.Time
}

func (r *revocationList) refresh(ctx context.Context) error {
	list, err := r.provider.Revocations(ctx)
	if err != nil {
		return err
	}
	m := make(map[string]time.Time, len(list))
	for _, rv := range list {
		m[rv.AgentID] = rv.RevokedAt
	}
	r.mu.Lock()
	r.revoked, r.fetchedAt = m, time.Now()
	r.mu.Unlock()
	return nil
}

func (r *revocationList) isRevoked(agentID string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	_, ok := r.revoked[agentID]
	return ok
}

// RemoteVerifier asks the provider to verify a certificate (remote-verify mode).
type RemoteVerifier struct {
	URL    string
	Client *http.Client
}

// Verify posts {"certificate": cert} and expects {"valid": bool, "revoked": bool}.
func (rv RemoteVerifier) Verify(ctx context.Context, cert json.RawMessage) (valid, revoked bool, err error) {
	client := rv.Client
	if client == nil {
		client = &http.Client{Timeout: 5 * time.Second}
	}
	body, _ := json.Marshal(map[string]json.RawMessage{"certificate": cert})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rv.URL, bytes.NewReader(body))
	if err != nil {
		return false, false, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return false, false, fmt.Errorf("remote verify: %w", err)
	}
	defer resp.Body.Close()
	var out struct {
		Valid   bool `json:"valid"`
		Revoked bool `json:"revoked"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return false, false, fmt.Errorf("remote verify: %w", err)
	}
	return out.Valid, out.Revoked, nil
}
