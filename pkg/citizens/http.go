package citizens

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"sharedworld.dev/pkg/clock"
)

// HTTPSource asks identity's internal lookup endpoint.
type HTTPSource struct {
	BaseURL string // identity's base URL
	Client  *http.Client
}

// Lookup calls GET {BaseURL}/internal/citizens/{agent_id}.
func (h HTTPSource) Lookup(ctx context.Context, agentID string) (Citizen, bool, error) {
	client := h.Client
	if client == nil {
		client = &http.Client{Timeout: 3 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.BaseURL+"/internal/citizens/"+url.PathEscape(agentID), nil)
	if err != nil {
		return Citizen{}, false, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return Citizen{}, false, fmt.Errorf("ask identity about %s: %w", agentID, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return Citizen{}, false, nil
	}
	if resp.StatusCode != http.StatusOK {
		return Citizen{}, false, fmt.Errorf("ask identity about %s: status %d", agentID, resp.StatusCode)
	}
	var body struct {
		Citizen Citizen `json:"citizen"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return Citizen{}, false, fmt.Errorf("ask identity about %s: %w", agentID, err)
	}
	return body.Citizen, true, nil
}

// Sighting is one authenticated request, reported to identity for presence.
type Sighting struct {
	AgentID string    `json:"agent_id"`
	Signed  bool      `json:"signed"`
	At      time.Time `json:"at"`
}

// PresenceReporter batches sightings and posts them to identity's internal
// presence endpoint once a second, so presence costs no request-path I/O.
type PresenceReporter struct {
	BaseURL string
	Client  *http.Client
	Log     *slog.Logger
	// Clock stamps sightings with the world's time (nil: the wall clock).
	Clock clock.Clock

	mu      sync.Mutex
	pending map[string]Sighting
}

// Seen records a sighting (the auth middleware's hook).
func (p *PresenceReporter) Seen(_ context.Context, agentID string, signed bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pending == nil {
		p.pending = map[string]Sighting{}
	}
	prev := p.pending[agentID]
	now := time.Now
	if p.Clock != nil {
		now = p.Clock.Now
	}
	p.pending[agentID] = Sighting{AgentID: agentID, Signed: signed || prev.Signed, At: now().UTC()}
}

// Run flushes every second until ctx ends.
func (p *PresenceReporter) Run(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			p.flush(context.WithoutCancel(ctx))
			return
		case <-t.C:
			p.flush(ctx)
		}
	}
}

func (p *PresenceReporter) flush(ctx context.Context) {
	p.mu.Lock()
	batch := make([]Sighting, 0, len(p.pending))
	for _, s := range p.pending {
		batch = append(batch, s)
	}
	p.pending = nil
	p.mu.Unlock()
	if len(batch) == 0 {
		return
	}
	client := p.Client
	if client == nil {
		client = &http.Client{Timeout: 3 * time.Second}
	}
	body, _ := json.Marshal(map[string]any{"sightings": batch})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.BaseURL+"/internal/presence", bytes.NewReader(body))
	if err != nil {
		return
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		if p.Log != nil {
			p.Log.Warn("presence report failed", slog.String("error", err.Error()))
		}
		return
	}
	resp.Body.Close()
}
