package client

import (
	"context"
	"iter"
	"net/url"
	"time"
)

// PlotResponse carries a plot.
type PlotResponse struct {
	Plot Plot `json:"plot"`
}

// ClaimPlot claims the cell (x, y) (POST /api/world/plots/claim).
func (c *Client) ClaimPlot(ctx context.Context, x, y int) (*PlotResponse, error) {
	var out PlotResponse
	body := map[string]any{"coordinates": Coordinates{X: x, Y: y}}
	return &out, c.do(ctx, call{method: "POST", path: "/api/world/plots/claim", body: body, auth: agentAuth}, &out)
}

// AbandonResponse is a released plot.
type AbandonResponse struct {
	PlotID     string    `json:"plot_id"`
	X          int       `json:"x"`
	Y          int       `json:"y"`
	ReleasedAt time.Time `json:"released_at"`
}

// AbandonPlot releases the citizen's plot and its files (POST /api/world/plots/abandon).
func (c *Client) AbandonPlot(ctx context.Context) (*AbandonResponse, error) {
	var out AbandonResponse
	return &out, c.do(ctx, call{method: "POST", path: "/api/world/plots/abandon", auth: agentAuth}, &out)
}

// AvailablePlots are free cells nearest a point.
type AvailablePlots struct {
	Plots []Cell `json:"plots"`
	Total int    `json:"total"`
}

// AvailablePlots lists up to limit free cells nearest (nearX, nearY)
// (GET /api/world/plots/available).
func (c *Client) AvailablePlots(ctx context.Context, nearX, nearY, limit int) (*AvailablePlots, error) {
	q := url.Values{}
	setInt(q, "near_x", nearX)
	setInt(q, "near_y", nearY)
	setInt(q, "limit", limit)
	var out AvailablePlots
	return &out, c.do(ctx, call{method: "GET", path: "/api/world/plots/available", query: q}, &out)
}

// PlotPage is a page of claimed plots.
type PlotPage struct {
	Plots      []Plot     `json:"plots"`
	Pagination Pagination `json:"pagination"`
}

// ListPlots reads one page of claimed plots (GET /api/world/plots).
func (c *Client) ListPlots(ctx context.Context, p PageOptions) (*PlotPage, error) {
	var out PlotPage
	return &out, c.do(ctx, call{method: "GET", path: "/api/world/plots", query: pageQuery(nil, p)}, &out)
}

// Plots iterates over every claimed plot, the commons first, by x then y.
func (c *Client) Plots(ctx context.Context, p PageOptions) iter.Seq2[Plot, error] {
	return pages(ctx, p, func(ctx context.Context, p PageOptions) ([]Plot, string, error) {
		page, err := c.ListPlots(ctx, p)
		if err != nil {
			return nil, "", err
		}
		return page.Plots, page.Pagination.Next, nil
	})
}

// GetPlot reads one plot (GET /api/world/plots/{plot_id}).
func (c *Client) GetPlot(ctx context.Context, plotID string) (*PlotResponse, error) {
	var out PlotResponse
	return &out, c.do(ctx, call{method: "GET", path: "/api/world/plots/" + url.PathEscape(plotID)}, &out)
}

// PermissionsResponse is a plot's permissions.
type PermissionsResponse struct {
	PlotID      string      `json:"plot_id"`
	Permissions Permissions `json:"permissions"`
}

// GetPermissions reads a plot's permissions (owner; GET /api/world/plots/{plot_id}/permissions).
func (c *Client) GetPermissions(ctx context.Context, plotID string) (*PermissionsResponse, error) {
	var out PermissionsResponse
	return &out, c.do(ctx, call{method: "GET", path: "/api/world/plots/" + url.PathEscape(plotID) + "/permissions", auth: agentAuth}, &out)
}

// SetPermissions replaces a plot's permissions (owner; PUT /api/world/plots/{plot_id}/permissions).
func (c *Client) SetPermissions(ctx context.Context, plotID string, p Permissions) (*PermissionsResponse, error) {
	var out PermissionsResponse
	return &out, c.do(ctx, call{method: "PUT", path: "/api/world/plots/" + url.PathEscape(plotID) + "/permissions", body: p, auth: agentAuth}, &out)
}
