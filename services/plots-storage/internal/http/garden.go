package http

import (
	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// GardenAdminPrefix is the admin route that removes any garden file: the
// rest of the URL path is the garden path below /garden/.
const GardenAdminPrefix = "/api/admin/garden/"

// removeGardenFile is DELETE /api/admin/garden/<name>/<item>.md, behind the
// ambassador's bearer token. The path is the URL's, taken literally like
// every storage path. An archive steward's route would call the same use
// case with domain.RoleArchiveSteward.
func (h *Handlers) removeGardenFile(c *fiber.Ctx) error {
	path := domain.GardenPrefix + c.Params("*")
	f, err := h.App.RemoveGardenFile(c.UserContext(), domain.Remover{Role: domain.RoleAmbassador}, path)
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"plot_id": f.PlotID, "path": f.Path, "deleted": true,
		"planted_by": f.PlantedBy})
}
