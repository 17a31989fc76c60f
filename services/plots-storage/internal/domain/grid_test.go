package domain

import (
	"testing"

	"sharedworld.dev/pkg/problem"
)

func TestValidateClaim(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		cell Coordinates
		want problem.Kind
	}{
		{"§4 grid: lowest corner besides the commons", Coordinates{0, 1}, accepted},
		{"§4 grid: highest corner", Coordinates{999, 999}, accepted},
		{"§4 grid: x=999 y=0", Coordinates{999, 0}, accepted},
		{"§4 grid: x above 999 is 422", Coordinates{1000, 5}, problem.KindValidation},
		{"§4 grid: y above 999 is 422", Coordinates{5, 1000}, problem.KindValidation},
		{"§4 grid: negative x is 422", Coordinates{-1, 5}, problem.KindValidation},
		{"§4 grid: negative y is 422", Coordinates{5, -1}, problem.KindValidation},
		{"§4 grid: huge values are 422", Coordinates{1 << 40, -1 << 40}, problem.KindValidation},
		{"§4 commons: (0,0) is taken by the commons, 409", Coordinates{0, 0}, problem.KindConflict},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkKind(t, ValidateClaim(tc.cell), tc.want)
		})
	}
}

func TestPlotIDRoundTrip(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		cell Coordinates
		id   string
	}{
		{"§1 ids: the commons is plot_0_0", Coordinates{0, 0}, "plot_0_0"},
		{"§1 ids: plot_x<X>_y<Y>", Coordinates{12, 5}, "plot_x12_y5"},
		{"§1 ids: x zero, y not", Coordinates{0, 7}, "plot_x0_y7"},
		{"§1 ids: y zero, x not", Coordinates{7, 0}, "plot_x7_y0"},
		{"§1 ids: far corner", Coordinates{999, 999}, "plot_x999_y999"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tc.cell.PlotID(); got != tc.id {
				t.Fatalf("PlotID(%v) = %q, want %q", tc.cell, got, tc.id)
			}
			got, err := ParsePlotID(tc.id)
			if err != nil || got != tc.cell {
				t.Fatalf("ParsePlotID(%q) = %v, %v; want %v", tc.id, got, err, tc.cell)
			}
		})
	}
}

func TestParsePlotIDRefusesNonCanonical(t *testing.T) {
	t.Parallel()
	for _, id := range []string{
		"", "plot", "plot_x0_y0", // the origin is spelled plot_0_0 only
		"plot_x01_y2", "plot_x1_y02", "plot_x+1_y2", "plot_x-1_y2", "plot_x1000_y2",
		"plot_x1_y1000", "plot_x1y2", "plot_x1_y2_", "PLOT_X1_Y2", "plot_x_y2", "plot_x1_y",
		"plot_x 1_y2", "plot_x1_y2\x00", "plot_1_2", "xplot_x1_y2",
	} {
		t.Run("§1 ids: "+id, func(t *testing.T) {
			t.Parallel()
			_, err := ParsePlotID(id)
			checkKind(t, err, problem.KindNotFound)
		})
	}
}

func TestClaimCell(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		nested *CellInput
		plain  CellInput
		want   Coordinates
		kind   problem.Kind
	}{
		{"§4 claim: coordinates object", &CellInput{intp(3), intp(4)}, CellInput{}, Coordinates{3, 4}, accepted},
		{"§4 claim: plain x and y", nil, CellInput{intp(5), intp(6)}, Coordinates{5, 6}, accepted},
		{"§4 claim: both forms agreeing", &CellInput{intp(5), intp(6)}, CellInput{intp(5), intp(6)}, Coordinates{5, 6}, accepted},
		{"§4 claim: zero is a value, not absent", &CellInput{intp(0), intp(9)}, CellInput{}, Coordinates{0, 9}, accepted},
		{"§4 claim: empty coordinates object falls back to x/y", &CellInput{}, CellInput{intp(1), intp(2)}, Coordinates{1, 2}, accepted},
		{"§11 missing: nothing sent is 400", nil, CellInput{}, Coordinates{}, problem.KindInvalid},
		{"§11 missing: only x is 400", nil, CellInput{X: intp(1)}, Coordinates{}, problem.KindInvalid},
		{"§11 missing: coordinates without y is 400", &CellInput{X: intp(1)}, CellInput{}, Coordinates{}, problem.KindInvalid},
		{"§4 claim: forms disagreeing is 400", &CellInput{intp(1), intp(2)}, CellInput{intp(2), intp(1)}, Coordinates{}, problem.KindInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ClaimCell(tc.nested, tc.plain)
			checkKind(t, err, tc.kind)
			if err == nil && got != tc.want {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}
