package http

import (
	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// The admin routes that remove any garden file: the URL path below
// /api/admin/garden/ is the garden path below /garden/ (a planting's
// <name>/<item>.md, or index.md).
const (
	GardenAdminPlanting = "/api/admin/garden/:name/:item"
	GardenAdminFile     = "/api/admin/garden/:item"
)

// removeGardenFile is DELETE /api/admin/garden/<name>/<item>.md (or
// /index.md), behind the ambassador's bearer token. The path is the URL's,
// taken literally like every storage path. An archive steward's route
// would call the same use case with domain.RoleArchiveSteward.
func (h *Handlers) removeGardenFile(c *fiber.Ctx) error {
	path := domain.GardenPrefix + c.Params("item")
	if name := c.Params("name"); name != "" {
		path = domain.GardenPrefix + name + "/" + c.Params("item")
	}
	f, err := h.App.RemoveGardenFile(c.UserContext(), domain.Remover{Role: domain.RoleAmbassador}, path)
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"plot_id": f.PlotID, "path": f.Path, "deleted": true,
		"planted_by": f.PlantedBy})
}
