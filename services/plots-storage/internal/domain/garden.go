package domain

import (
	"fmt"
	"strings"

	"sharedworld.dev/pkg/problem"
)

// The garden lives on the commons under GardenPrefix; GardenIndexPath is the
// one tended file (CONTRACT §4).
const (
	GardenPrefix    = "/garden/"
	GardenIndexPath = "/garden/index.md"
)

// Verb says what a garden write did.
type Verb string

// The two garden verbs.
const (
	Planted Verb = "planted"
	Tended  Verb = "tended"
)

// InGarden reports whether path is under the garden prefix.
func InGarden(path string) bool { return strings.HasPrefix(path, GardenPrefix) }

// ValidateGardenPath checks the garden's own shape on top of ValidatePath:
// `/garden/<name>/<item>.md` or `/garden/index.md`, anything else is 400.
func ValidateGardenPath(path string) error {
	if path == GardenIndexPath {
		return nil
	}
	rest, _ := strings.CutPrefix(path, GardenPrefix)
	name, item, ok := strings.Cut(rest, "/")
	if ok && name != "" && !strings.Contains(item, "/") && len(item) > len(".md") && strings.HasSuffix(item, ".md") {
		return nil
	}
	return problem.Invalid("garden path "+truncate(path, 80)+" has the wrong shape",
		"garden files are /garden/<name>/<item>.md (for example /garden/ada/poem.md) or /garden/index.md")
}

// GardenVerb is `tended` for the index and for a path that already held a
// file, `planted` for a new path.
func GardenVerb(path string, existed bool) Verb {
	if path == GardenIndexPath || existed {
		return Tended
	}
	return Planted
}

// The garden's limits (CONTRACT §4): the garden as a whole, and each
// citizen's share of it, well below the whole, so no one citizen can fill
// it for everyone. A planting counts toward its planter's share at its
// current size, whoever tended it last; the index counts toward the
// garden only.
const (
	GardenMaxFiles   = 100_000
	GardenQuotaBytes = 2 * GiB
	ShareMaxFiles    = 100
	ShareQuotaBytes  = 5 * MiB
)

// RemoveHint says how a citizen frees room in its share; every part of it
// is a route that exists.
const RemoveHint = `remove plantings of yours you no longer need: POST /api/world/storage/delete ` +
	`{"plot_id": "plot_0_0", "path": "/garden/<name>/<item>.md"}`

// GardenQuota is the garden's own quota, over every planting.
var GardenQuota = Quota{Bytes: GardenQuotaBytes, Files: GardenMaxFiles, exceeded: func(u Usage, c Change) error {
	hint := "tend an existing file instead (a new version of a path adds no file), or " + RemoveHint +
		"; the ambassador prunes the garden: file a ticket (POST /api/world/tickets) to ask"
	if c.Files > 0 && u.Files+c.Files > GardenMaxFiles {
		return problem.TooLarge(fmt.Sprintf("the garden is full: %d of its %d files are planted or set aside for planters' shares",
			u.Files, GardenMaxFiles), hint)
	}
	return problem.TooLarge(fmt.Sprintf("the write needs %d more bytes but %d of the garden's %s are planted or set aside for planters' shares",
		c.Bytes, u.Bytes, humanBytes(GardenQuotaBytes)), hint)
}}

// OwnShare is the quota of the caller's own share: it is planting, or
// tending one of its own plantings.
var OwnShare = Quota{Bytes: ShareQuotaBytes, Files: ShareMaxFiles, exceeded: func(u Usage, c Change) error {
	if c.Files > 0 && u.Files+c.Files > ShareMaxFiles {
		return problem.TooLarge(fmt.Sprintf("your share of the garden is full: you have %d plantings, a citizen's share is %d files",
			u.Files, ShareMaxFiles), RemoveHint+"; tending a path that exists adds no file")
	}
	return problem.TooLarge(fmt.Sprintf("the write needs %d more bytes but your plantings take %d of your %s share of the garden",
		c.Bytes, u.Bytes, humanBytes(ShareQuotaBytes)), RemoveHint+", or write smaller versions of them")
}}

// PlantersShare is the quota of another planter's share, which a tend of
// its planting counts toward (a tend never adds a file, only bytes).
var PlantersShare = Quota{Bytes: ShareQuotaBytes, Files: ShareMaxFiles, exceeded: func(u Usage, c Change) error {
	room := max(ShareQuotaBytes-u.Bytes, 0)
	return problem.TooLarge(fmt.Sprintf("this file counts toward its planter's %s share of the garden, which has %d bytes left; the new version needs %d more",
		humanBytes(ShareQuotaBytes), room, c.Bytes),
		fmt.Sprintf("write a version at most %d bytes larger than the current one, or plant a file of your own at a new path", room))
}}

// Planter is the citizen a write of path by agentID counts toward, given
// the head it replaces: a living planting keeps its planter; a new path
// (or a removed one planted again) is the writer's; the index is nobody's.
func Planter(path string, cur File, agentID string) string {
	switch {
	case path == GardenIndexPath:
		return ""
	case cur.Exists():
		return cur.PlantedBy
	}
	return agentID
}

// Role is what an admin caller acts as.
type Role string

// Curators: the ambassador now; the archive steward (a governance office)
// is the seam for later, allowed by the same rule once its route exists.
const (
	RoleAmbassador     Role = "ambassador"
	RoleArchiveSteward Role = "archive_steward"
)

// Remover is who asks to remove a garden file: a citizen (AgentID), or a
// curator acting by its role.
type Remover struct {
	AgentID string
	Role    Role
}

// Curates reports whether r may remove any garden file.
func (r Remover) Curates() bool { return r.Role == RoleAmbassador || r.Role == RoleArchiveSteward }

// AuthorizeGardenRemoval decides the removal of the garden file f: a
// curator removes any; a citizen only what it planted.
func AuthorizeGardenRemoval(f File, by Remover) error {
	switch {
	case by.Curates():
		return nil
	case f.Path == GardenIndexPath:
		return problem.Permission("the garden index belongs to everyone; only the ambassador removes it",
			"tend it instead: write a new version of /garden/index.md")
	case f.PlantedBy == "":
		return problem.Permission("this file was planted before plantings were recorded, so only the ambassador removes it",
			"file a ticket (POST /api/world/tickets) asking the ambassador to remove it, or tend it instead")
	case by.AgentID != Anonymous && by.AgentID == f.PlantedBy:
		return nil
	}
	return problem.Permission("only its planter (or the ambassador) may remove a garden file",
		"tend it instead (write a new version to the same path), or remove plantings of your own")
}
