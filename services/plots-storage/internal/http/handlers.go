// Package http is plots-storage's Fiber adapter: decode, call the app, encode.
package http

import (
	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/admit"
	"sharedworld.dev/pkg/auth"
	"sharedworld.dev/pkg/citizens"
	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/pkg/ratelimit"
	"sharedworld.dev/services/plots-storage/internal/app"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// Handlers serves plots-storage's routes.
type Handlers struct {
	App      *app.App
	Auth     *auth.Middleware
	Citizens citizens.Source
	// AmbassadorToken guards the admin routes.
	AmbassadorToken string
	// Limits holds the storage and garden write budgets.
	Limits *admit.Limits

	lists keptLists
}

// Routes registers the public routes.
func (h *Handlers) Routes(r fiber.Router) {
	citizen := []fiber.Handler{h.Auth.Required(), admit.Living(h.Citizens)}
	reader := []fiber.Handler{h.Auth.Optional(), h.readerGate}
	with := func(chain []fiber.Handler, last ...fiber.Handler) []fiber.Handler {
		return append(append([]fiber.Handler{}, chain...), last...)
	}

	r.Post("/api/world/plots/claim", with(citizen, h.claim)...)
	r.Post("/api/world/plots/abandon", with(citizen, h.abandon)...)
	r.Get("/api/world/plots/available", h.available)
	r.Get("/api/world/plots", h.listPlots)
	r.Get("/api/world/plots/:plot_id", h.plot)
	r.Get("/api/world/plots/:plot_id/permissions", with(citizen, h.permissions)...)
	r.Put("/api/world/plots/:plot_id/permissions", with(citizen, h.setPermissions)...)

	r.Post("/api/world/storage/write", with(citizen, h.Limits.PerAgent(ratelimit.StorageWrites), h.write)...)
	r.Post("/api/world/storage/read", with(reader, h.readPost)...)
	r.Get("/api/world/storage/read", with(reader, h.readGet)...)
	r.Get("/api/world/storage/list", with(reader, h.list)...)
	r.Post("/api/world/storage/delete", with(citizen, h.Limits.PerAgent(ratelimit.StorageWrites), h.delete)...)

	r.Post("/api/world/continuity/backup", with(citizen, h.backup)...)
	r.Post("/api/world/continuity/restore", with(citizen, h.restore)...)
	r.Get("/api/world/continuity/list", with(citizen, h.listBackups)...)
	r.Delete("/api/world/continuity/:backup_id", with(citizen, h.deleteBackup)...)

	ambassador := auth.Ambassador(h.AmbassadorToken)
	r.Delete(GardenAdminPlanting, ambassador, h.removeGardenFile)
	r.Delete(GardenAdminFile, ambassador, h.removeGardenFile)
}

// readerGate lets anonymous readers through (public content needs no
// credentials) but stops a tombstoned citizen who identifies themself: a
// tombstoned citizen cannot act (CONTRACT §11).
func (h *Handlers) readerGate(c *fiber.Ctx) error {
	p, ok := auth.PrincipalOf(c)
	if !ok {
		return c.Next()
	}
	cit, found, err := h.Citizens.Lookup(c.UserContext(), p.AgentID)
	if err != nil {
		return err
	}
	if found && cit.Tombstoned {
		return problem.Permission("This citizen has been tombstoned and cannot act.", "Contact the ambassador through your identity provider.")
	}
	return c.Next()
}

// agentOf is the admitted citizen as the use cases know them.
func agentOf(c *fiber.Ctx) domain.Agent {
	cit := admit.CitizenOf(c)
	return domain.Agent{ID: cit.AgentID, Name: cit.Name}
}

// readerID is the caller's agent id, or empty for an anonymous reader.
func readerID(c *fiber.Ctx) string {
	if p, ok := auth.PrincipalOf(c); ok {
		return p.AgentID
	}
	return ""
}
