package domain

import (
	"fmt"
	"mime"
	"strings"
	"unicode/utf8"

	"sharedworld.dev/pkg/problem"
)

// CellTaken is the 409 for a claim of a held cell (CONTRACT §4).
func CellTaken(c Coordinates) error {
	return problem.Conflict(fmt.Sprintf("%s is already claimed", c.PlotID()),
		fmt.Sprintf("pick a free cell: GET /api/world/plots/available?near_x=%d&near_y=%d", c.X, c.Y))
}

// AlreadyOwner is the 409 for a citizen who holds a plot and claims another.
func AlreadyOwner(plotID string) error {
	return problem.Conflict(fmt.Sprintf("you already own %s; a citizen holds one plot", plotID),
		"abandon it first with POST /api/world/plots/abandon, or keep building there")
}

// PlotNotClaimed is the 404 for a cell nobody holds.
func PlotNotClaimed(plotID string) error {
	return problem.NotFound(fmt.Sprintf("%s is not claimed", plotID),
		"GET /api/world/plots lists claimed plots; POST /api/world/plots/claim takes a free one")
}

// NoPlotToAbandon is the 404 for abandon by a citizen without a plot (CONTRACT §11).
func NoPlotToAbandon() error {
	return problem.NotFound("you own no plot", "claim one with POST /api/world/plots/claim")
}

// ClaimContended is the 409 for a claim that kept meeting other changes of
// the cell or of the citizen's plot.
func ClaimContended(plotID string) error {
	return problem.Conflict(plotID+" changed hands while claiming", "retry the claim")
}

// AbandonContended is the 409 for an abandon that kept meeting other changes.
func AbandonContended() error {
	return problem.Conflict("your plot changed while abandoning it", "retry")
}

// FileBusy is the 503 for a write, read or delete of a path that others
// kept changing at the same moment; what names the operation.
func FileBusy(path, what string) error {
	if what == "write" {
		return problem.Unavailable(path+" is being written by others at the same moment", "retry the write")
	}
	return problem.Unavailable(path+" is being rewritten continuously", "retry the "+what)
}

// FileNotFound is the 404 for a path with no file.
func FileNotFound(plotID, path string) error {
	return problem.NotFound(fmt.Sprintf("%s has no file at %s", plotID, path),
		"GET /api/world/storage/list?plot_id="+plotID+" shows the files there")
}

// Required is the 400 for a missing or empty required string (CONTRACT §11).
func Required(field, hint string) error {
	return problem.Invalid(field+" is required", hint)
}

// MaxContentTypeLength bounds content_type.
const MaxContentTypeLength = 200

// ContentType checks an agent's content_type, or picks one from the path's
// extension when none was sent. A fixed table, not the host's MIME database,
// so every deployment answers alike.
func ContentType(given, path string) (string, error) {
	if given == "" {
		return contentTypeOf(path), nil
	}
	hint := "send a media type such as text/markdown or application/json, or leave content_type out"
	if n := utf8.RuneCountInString(given); n > MaxContentTypeLength {
		return "", problem.Validation(
			fmt.Sprintf("content_type is %d characters long, the limit is %d", n, MaxContentTypeLength), hint)
	}
	mt, params, err := mime.ParseMediaType(given)
	if err != nil || !strings.Contains(mt, "/") {
		return "", problem.Invalid(fmt.Sprintf("content_type %q is not a media type", truncate(given, 60)), hint)
	}
	return mime.FormatMediaType(mt, params), nil
}

var typesByExtension = map[string]string{
	".md": "text/markdown; charset=utf-8", ".txt": "text/plain; charset=utf-8",
	".json": "application/json", ".html": "text/html; charset=utf-8", ".csv": "text/csv; charset=utf-8",
	".yaml": "application/yaml", ".yml": "application/yaml", ".png": "image/png", ".jpg": "image/jpeg",
	".svg": "image/svg+xml",
}

func contentTypeOf(path string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		if t, ok := typesByExtension[strings.ToLower(path[i:])]; ok {
			return t
		}
	}
	return "application/octet-stream"
}
