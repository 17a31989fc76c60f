package http

import (
	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

type plotJSON struct {
	PlotID      string  `json:"plot_id"`
	X           int     `json:"x"`
	Y           int     `json:"y"`
	Owner       string  `json:"owner_agent_id"`
	DisplayName *string `json:"display_name"`
	ClaimedAt   string  `json:"claimed_at"`
}

func toPlotJSON(p domain.Plot) plotJSON {
	j := plotJSON{PlotID: p.ID, X: p.Cell.X, Y: p.Cell.Y, Owner: p.Owner, ClaimedAt: clock.Timestamp(p.ClaimedAt)}
	if p.DisplayName != "" {
		j.DisplayName = &p.DisplayName
	}
	return j
}

type claimRequest struct {
	Coordinates *cellJSON `json:"coordinates"`
	cellJSON
}

func (h *Handlers) claim(c *fiber.Ctx) error {
	var req claimRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	var nested *domain.CellInput
	if req.Coordinates != nil {
		in := req.Coordinates.input()
		nested = &in
	}
	cell, err := domain.ClaimCell(nested, req.cellJSON.input())
	if err != nil {
		return err
	}
	p, err := h.App.Claim(c.UserContext(), agentOf(c), cell)
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusCreated, fiber.Map{"plot": toPlotJSON(p)})
}

func (h *Handlers) abandon(c *fiber.Ctx) error {
	p, at, err := h.App.Abandon(c.UserContext(), agentOf(c))
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"plot_id": p.ID, "x": p.Cell.X, "y": p.Cell.Y, "released_at": clock.Timestamp(at)})
}

type cellRef struct {
	PlotID string `json:"plot_id"`
	X      int    `json:"x"`
	Y      int    `json:"y"`
}

func (h *Handlers) available(c *fiber.Ctx) error {
	limit, err := httpx.Limit(c)
	if err != nil {
		return err
	}
	near, err := queryCell(c)
	if err != nil {
		return err
	}
	cells, total, err := h.App.Available(c.UserContext(), near, limit)
	if err != nil {
		return err
	}
	out := make([]cellRef, len(cells))
	for i, cell := range cells {
		out[i] = cellRef{PlotID: cell.PlotID(), X: cell.X, Y: cell.Y}
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"plots": out, "total": total})
}

type plotCursor struct {
	X int `json:"x"`
	Y int `json:"y"`
}

func (h *Handlers) listPlots(c *fiber.Ctx) error {
	limit, err := httpx.Limit(c)
	if err != nil {
		return err
	}
	var after *domain.Coordinates
	if raw := c.Query("cursor"); raw != "" {
		var pos plotCursor
		if err := httpx.DecodeCursor(raw, &pos); err != nil {
			return err
		}
		after = &domain.Coordinates{X: pos.X, Y: pos.Y}
	}
	plots, err := h.App.ListPlots(c.UserContext(), after, limit+1)
	if err != nil {
		return err
	}
	page := httpx.Pagination{Limit: limit}
	if len(plots) > limit {
		plots = plots[:limit]
		last := plots[len(plots)-1]
		next := httpx.EncodeCursor(plotCursor{X: last.Cell.X, Y: last.Cell.Y})
		page.Next = &next
	}
	out := make([]plotJSON, len(plots))
	for i, p := range plots {
		out[i] = toPlotJSON(p)
	}
	page.Count = len(out)
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"plots": out, "pagination": page})
}

func (h *Handlers) plot(c *fiber.Ctx) error {
	p, err := h.App.Plot(c.UserContext(), c.Params("plot_id"))
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"plot": toPlotJSON(p)})
}

type permissionsJSON struct {
	PublicRead         bool     `json:"public_read"`
	PublicWrite        bool     `json:"public_write"`
	AllowedAgents      []string `json:"allowed_agents"`
	BannedAgents       []string `json:"banned_agents"`
	GovernanceOverride bool     `json:"governance_override"`
}

func toPermissionsJSON(p domain.Permissions) permissionsJSON {
	j := permissionsJSON{PublicRead: p.PublicRead, PublicWrite: p.PublicWrite, AllowedAgents: p.AllowedAgents,
		BannedAgents: p.BannedAgents, GovernanceOverride: p.GovernanceOverride}
	if j.AllowedAgents == nil {
		j.AllowedAgents = []string{}
	}
	if j.BannedAgents == nil {
		j.BannedAgents = []string{}
	}
	return j
}

func (h *Handlers) permissions(c *fiber.Ctx) error {
	p, perms, err := h.App.PlotPermissions(c.UserContext(), agentOf(c).ID, c.Params("plot_id"))
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"plot_id": p.ID, "permissions": toPermissionsJSON(perms)})
}

// permissionFields are the five honoured fields; anything else is ignored.
type permissionFields struct {
	PublicRead         *bool    `json:"public_read"`
	PublicWrite        *bool    `json:"public_write"`
	AllowedAgents      []string `json:"allowed_agents"`
	BannedAgents       []string `json:"banned_agents"`
	GovernanceOverride *bool    `json:"governance_override"`
}

func (f permissionFields) empty() bool {
	return f.PublicRead == nil && f.PublicWrite == nil && f.AllowedAgents == nil && f.BannedAgents == nil && f.GovernanceOverride == nil
}

type permissionsRequest struct {
	permissionFields
	// Permissions accepts the same fields nested, as some clients send them.
	Permissions *permissionFields `json:"permissions"`
}

func (h *Handlers) setPermissions(c *fiber.Ctx) error {
	var req permissionsRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	f := req.permissionFields
	if f.empty() && req.Permissions != nil {
		f = *req.Permissions
	}
	p, perms, err := h.App.SetPermissions(c.UserContext(), agentOf(c).ID, c.Params("plot_id"), domain.PermissionsInput{
		PublicRead: f.PublicRead, PublicWrite: f.PublicWrite, AllowedAgents: f.AllowedAgents,
		BannedAgents: f.BannedAgents, GovernanceOverride: f.GovernanceOverride,
	})
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"plot_id": p.ID, "permissions": toPermissionsJSON(perms)})
}
