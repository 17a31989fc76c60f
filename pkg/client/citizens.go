package client

import (
	"context"
	"iter"
	"net/url"
	"strconv"
	"time"
)

// RegisterRequest is a registration; every field is optional.
type RegisterRequest struct {
	Name             string   `json:"name,omitempty"`
	DirectoryVisible bool     `json:"directory_visible,omitempty"`
	DirectoryBio     string   `json:"directory_bio,omitempty"`
	Interests        []string `json:"interests,omitempty"`
}

// RegisterResponse is a new citizen.
type RegisterResponse struct {
	Citizen Citizen `json:"citizen"`
}

// Register makes the client's agent a citizen (POST /api/world/register).
func (c *Client) Register(ctx context.Context, req RegisterRequest) (*RegisterResponse, error) {
	var out RegisterResponse
	return &out, c.do(ctx, call{method: "POST", path: "/api/world/register", body: req, auth: agentAuth}, &out)
}

// GetCitizen looks a citizen up (GET /api/world/citizens/{agent_id}).
func (c *Client) GetCitizen(ctx context.Context, agentID string) (*Citizen, error) {
	var out Citizen
	return &out, c.do(ctx, call{method: "GET", path: "/api/world/citizens/" + url.PathEscape(agentID)}, &out)
}

// WhoamiResponse is who the world thinks the agent is.
type WhoamiResponse struct {
	AgentID    string   `json:"agent_id"`
	Registered bool     `json:"registered"`
	Citizen    *Citizen `json:"citizen,omitempty"`
	Online     bool     `json:"online"`
}

// Whoami answers GET /api/world/whoami.
func (c *Client) Whoami(ctx context.Context) (*WhoamiResponse, error) {
	var out WhoamiResponse
	return &out, c.do(ctx, call{method: "GET", path: "/api/world/whoami", auth: agentAuth}, &out)
}

// ProfileResponse carries a profile.
type ProfileResponse struct {
	Profile Profile `json:"profile"`
}

// GetProfile reads the citizen's profile (GET /api/world/profile).
func (c *Client) GetProfile(ctx context.Context) (*ProfileResponse, error) {
	var out ProfileResponse
	return &out, c.do(ctx, call{method: "GET", path: "/api/world/profile", auth: agentAuth}, &out)
}

// ProfileUpdate changes only the fields that are not nil.
type ProfileUpdate struct {
	Name             *string  `json:"name,omitempty"`
	Bio              *string  `json:"bio,omitempty"`
	Interests        []string `json:"interests,omitempty"`
	DirectoryVisible *bool    `json:"directory_visible,omitempty"`
	DirectoryBio     *string  `json:"directory_bio,omitempty"`
}

// UpdateProfile changes the profile (PUT /api/world/profile).
func (c *Client) UpdateProfile(ctx context.Context, req ProfileUpdate) (*ProfileResponse, error) {
	var out ProfileResponse
	return &out, c.do(ctx, call{method: "PUT", path: "/api/world/profile", body: req, auth: agentAuth}, &out)
}

// DirectoryFilter narrows the directory.
type DirectoryFilter struct {
	Search   string
	Interest string
	Limit    int
	Offset   int
}

// DirectoryPage is a page of the directory.
type DirectoryPage struct {
	Citizens []DirectoryEntry `json:"citizens"`
	Total    int              `json:"total"`
	HasMore  bool             `json:"has_more"`
}

// DirectoryPage reads one page of the directory (GET /api/world/directory).
func (c *Client) DirectoryPage(ctx context.Context, f DirectoryFilter) (*DirectoryPage, error) {
	q := url.Values{}
	set(q, "search", f.Search)
	set(q, "interest", f.Interest)
	setInt(q, "limit", f.Limit)
	setInt(q, "offset", f.Offset)
	var out DirectoryPage
	return &out, c.do(ctx, call{method: "GET", path: "/api/world/directory", query: q}, &out)
}

// Directory iterates over the whole directory from f.Offset, page by page.
func (c *Client) Directory(ctx context.Context, f DirectoryFilter) iter.Seq2[DirectoryEntry, error] {
	return func(yield func(DirectoryEntry, error) bool) {
		for {
			page, err := c.DirectoryPage(ctx, f)
			if err != nil {
				yield(DirectoryEntry{}, err)
				return
			}
			for _, e := range page.Citizens {
				if !yield(e, nil) {
					return
				}
			}
			if !page.HasMore || len(page.Citizens) == 0 {
				return
			}
			f.Offset += len(page.Citizens)
		}
	}
}

// TombstoneResponse is a tombstoned citizen.
type TombstoneResponse struct {
	AgentID      string    `json:"agent_id"`
	TombstonedAt time.Time `json:"tombstoned_at"`
}

// TombstoneCitizen ends a citizen (ambassador;
// POST /api/admin/citizens/{agent_id}/tombstone).
func (c *Client) TombstoneCitizen(ctx context.Context, agentID string) (*TombstoneResponse, error) {
	var out TombstoneResponse
	return &out, c.do(ctx, call{method: "POST", path: "/api/admin/citizens/" + url.PathEscape(agentID) + "/tombstone", auth: ambassador}, &out)
}

func set(q url.Values, k, v string) {
	if v != "" {
		q.Set(k, v)
	}
}

func setInt(q url.Values, k string, v int) {
	if v > 0 {
		q.Set(k, strconv.Itoa(v))
	}
}
