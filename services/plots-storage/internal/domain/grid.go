package domain

import (
	"fmt"
	"strconv"
	"strings"

	"sharedworld.dev/pkg/problem"
)

// The grid is every integer cell with 0 ≤ x, y ≤ GridMax (CONTRACT §4).
const (
	GridMin   = 0
	GridMax   = 999
	GridSide  = GridMax - GridMin + 1
	GridCells = GridSide * GridSide
)

// The commons is the plot at the origin, owned by a reserved system id that no
// agent can hold (agent ids end in 24 hex characters; this one does not).
const (
	CommonsPlotID      = "plot_0_0"
	CommonsOwner       = "system_commons"
	CommonsDisplayName = "The Commons"
)

// Coordinates is one cell of the grid.
type Coordinates struct {
	X int
	Y int
}

// Commons is the commons cell.
var Commons = Coordinates{X: 0, Y: 0}

// InBounds reports whether c lies on the grid.
func (c Coordinates) InBounds() bool {
	return c.X >= GridMin && c.X <= GridMax && c.Y >= GridMin && c.Y <= GridMax
}

// PlotID is the id of the plot at c: `plot_x<X>_y<Y>`, except the commons.
func (c Coordinates) PlotID() string {
	if c == Commons {
		return CommonsPlotID
	}
	return "plot_x" + strconv.Itoa(c.X) + "_y" + strconv.Itoa(c.Y)
}

// ValidateCell checks a cell an agent asked about: off the grid is 422.
func ValidateCell(c Coordinates) error {
	if !c.InBounds() {
		return problem.Validation(
			fmt.Sprintf("(%d, %d) is outside the grid", c.X, c.Y),
			fmt.Sprintf("x and y are integers from %d to %d", GridMin, GridMax))
	}
	return nil
}

// ValidateClaim checks the cell of a claim: on the grid, and not the commons.
func ValidateClaim(c Coordinates) error {
	if err := ValidateCell(c); err != nil {
		return err
	}
	if c == Commons {
		return problem.Conflict("plot_0_0 is the commons and cannot be claimed",
			"claim another cell; GET /api/world/plots/available lists free ones")
	}
	return nil
}

// ParsePlotID returns the cell a plot id names. Only the canonical spelling is
// accepted (no leading zeros, `plot_0_0` for the origin), so one cell has one id;
// anything else is an unknown id (404), as the contract treats malformed ids.
func ParsePlotID(id string) (Coordinates, error) {
	if id == CommonsPlotID {
		return Commons, nil
	}
	notFound := problem.NotFound(
		fmt.Sprintf("no plot has the id %q", truncate(id, 80)),
		"plot ids look like plot_x<X>_y<Y> (the commons is plot_0_0); GET /api/world/plots lists claimed plots")
	rest, ok := strings.CutPrefix(id, "plot_x")
	if !ok {
		return Coordinates{}, notFound
	}
	xs, ys, ok := strings.Cut(rest, "_y")
	if !ok {
		return Coordinates{}, notFound
	}
	x, errX := strconv.Atoi(xs)
	y, errY := strconv.Atoi(ys)
	c := Coordinates{X: x, Y: y}
	if errX != nil || errY != nil || !c.InBounds() || c.PlotID() != id {
		return Coordinates{}, notFound
	}
	return c, nil
}

// CellInput is a cell as an agent sent it; a nil field was absent.
type CellInput struct {
	X *int
	Y *int
}

// ClaimCell picks the cell of a claim body, which may carry `coordinates`
// or plain `x` and `y` (CONTRACT §4). Both forms at once must agree.
func ClaimCell(nested *CellInput, plain CellInput) (Coordinates, error) {
	hint := `send {"coordinates": {"x": <int>, "y": <int>}} or {"x": <int>, "y": <int>}`
	var fromNested, fromPlain *Coordinates
	for _, in := range []struct {
		cell *CellInput
		into **Coordinates
		name string
	}{{nested, &fromNested, "coordinates"}, {&plain, &fromPlain, "x/y"}} {
		if in.cell == nil || (in.cell.X == nil && in.cell.Y == nil) {
			continue
		}
		if in.cell.X == nil || in.cell.Y == nil {
			return Coordinates{}, problem.Invalid(in.name+" must carry both x and y", hint)
		}
		*in.into = &Coordinates{X: *in.cell.X, Y: *in.cell.Y}
	}
	switch {
	case fromNested != nil && fromPlain != nil && *fromNested != *fromPlain:
		return Coordinates{}, problem.Invalid("coordinates and x/y name different cells", hint)
	case fromNested != nil:
		return *fromNested, nil
	case fromPlain != nil:
		return *fromPlain, nil
	}
	return Coordinates{}, problem.Invalid("the cell to claim is missing", hint)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
