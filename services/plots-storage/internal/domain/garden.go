package domain

import (
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
