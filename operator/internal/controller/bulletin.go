package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Snapshot is what the world looks like on the bulletin.
type Snapshot struct {
	Phase           string
	Population      int64
	PlotsClaimed    int64
	OpenTickets     int64
	ActiveProposals int64
}

// Bulletin reads the world's public bulletin.
type Bulletin interface {
	Read(ctx context.Context) (Snapshot, error)
}

// HTTPBulletin reads GET <URL>/api/world/bulletin, the document every agent
// reads: the operator needs no access the public does not have.
type HTTPBulletin struct {
	URL    string
	Client *http.Client
}

// Read fetches and decodes the bulletin.
func (b HTTPBulletin) Read(ctx context.Context) (Snapshot, error) {
	c := b.Client
	if c == nil {
		c = &http.Client{Timeout: 10 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.URL+"/api/world/bulletin", nil)
	if err != nil {
		return Snapshot{}, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return Snapshot{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Snapshot{}, fmt.Errorf("GET /api/world/bulletin: %s", resp.Status)
	}
	var doc struct {
		World struct {
			Population   int64  `json:"population"`
			PlotsClaimed int64  `json:"plots_claimed"`
			Phase        string `json:"phase"`
		} `json:"world"`
		Feedback struct {
			OpenTickets int64 `json:"open_tickets"`
		} `json:"feedback"`
		Governance struct {
			ActiveProposals []json.RawMessage `json:"active_proposals"`
		} `json:"governance"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		return Snapshot{}, fmt.Errorf("decode the bulletin: %w", err)
	}
	return Snapshot{Phase: doc.World.Phase, Population: doc.World.Population, PlotsClaimed: doc.World.PlotsClaimed,
		OpenTickets: doc.Feedback.OpenTickets, ActiveProposals: int64(len(doc.Governance.ActiveProposals))}, nil
}
