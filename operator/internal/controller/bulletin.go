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
	// Pointers: a field the bulletin no longer sends is an error, not a
	// silent zero in the World's status.
	var doc struct {
		World struct {
			Population   *int64  `json:"population"`
			PlotsClaimed *int64  `json:"plots_claimed"`
			Phase        *string `json:"phase"`
		} `json:"world"`
		Feedback struct {
			OpenTickets *int64 `json:"open_tickets"`
		} `json:"feedback"`
		Governance struct {
			ActiveProposals *[]json.RawMessage `json:"active_proposals"`
		} `json:"governance"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		return Snapshot{}, fmt.Errorf("decode the bulletin: %w", err)
	}
	w, f, g := doc.World, doc.Feedback, doc.Governance
	for field, missing := range map[string]bool{"world.population": w.Population == nil, "world.plots_claimed": w.PlotsClaimed == nil,
		"world.phase": w.Phase == nil, "feedback.open_tickets": f.OpenTickets == nil, "governance.active_proposals": g.ActiveProposals == nil} {
		if missing {
			return Snapshot{}, fmt.Errorf("the bulletin document has no %s", field)
		}
	}
	return Snapshot{Phase: *w.Phase, Population: *w.Population, PlotsClaimed: *w.PlotsClaimed,
		OpenTickets: *f.OpenTickets, ActiveProposals: int64(len(*g.ActiveProposals))}, nil
}
