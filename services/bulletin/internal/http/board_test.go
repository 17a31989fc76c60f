package http

import (
	"fmt"
	"testing"

	"sharedworld.dev/services/bulletin/internal/domain"
)

// TestBoardMapBox: the map is cut to the plots (the commons always among
// them) plus a margin, every square inside it and visible at any spread.
func TestBoardMapBox(t *testing.T) {
	t.Parallel()
	commons := domain.PlotView{PlotID: domain.CommonsPlotID}
	at := func(x, y int) domain.PlotView {
		return domain.PlotView{PlotID: fmt.Sprintf("plot_x%d_y%d", x, y), X: x, Y: y}
	}
	cases := []struct {
		name   string
		plots  []domain.PlotView
		box    string
		shownX [2]int
	}{
		{"the commons alone", []domain.PlotView{commons}, "-20 -20 50 50", [2]int{0, 2}},
		{"a neighbour", []domain.PlotView{commons, at(3, 4)}, "-20 -20 80 90", [2]int{0, 5}},
		{"a row is no sliver", []domain.PlotView{commons, at(40, 0)}, "-40 -120 490 240", [2]int{0, 44}},
		{"the whole grid", []domain.PlotView{commons, at(999, 999)}, "-1000 -1000 12000 12000", [2]int{0, 999}},
	}
	for _, c := range cases {
		m := newBoardMap(c.plots)
		if m.ViewBox != c.box || [2]int{m.MinX, m.MaxX} != c.shownX {
			t.Errorf("%s: viewBox %q x %d–%d, want %q x %v", c.name, m.ViewBox, m.MinX, m.MaxX, c.box, c.shownX)
		}
		var x0, y0, w, h int
		fmt.Sscanf(m.ViewBox, "%d %d %d %d", &x0, &y0, &w, &h)
		if len(m.Plots) != len(c.plots) || !m.Plots[0].Commons || m.Size < cell || m.Size*100 < max(w, h) {
			t.Errorf("%s: %d squares of %d for a box of %d", c.name, len(m.Plots), m.Size, max(w, h))
		}
		for _, p := range m.Plots {
			if p.X < x0 || p.Y < y0 || p.X+m.Size > x0+w || p.Y+m.Size > y0+h {
				t.Errorf("%s: %s at (%d, %d) is outside %s", c.name, p.Title, p.X, p.Y, m.ViewBox)
			}
		}
	}
}
