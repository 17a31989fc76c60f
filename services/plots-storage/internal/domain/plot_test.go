package domain

import (
	"testing"
	"time"

	"sharedworld.dev/pkg/problem"
)

func TestPlotClaimAndRelease(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 22, 9, 15, 3, 127_999_999, time.FixedZone("east", 3600))
	ada, bob := Agent{ID: "ada", Name: "Ada"}, Agent{ID: "bob", Name: "Bob"}
	cell := Coordinates{X: 3, Y: 4}
	held := FreeCell(cell)
	if _, err := held.Claim(ada, "t1", at); err != nil {
		t.Fatal(err)
	}
	held.Version = 1
	cases := []struct {
		name string
		plot Plot
		by   Agent
		want problem.Kind
	}{
		{"§4 claim: a free cell is claimed", FreeCell(cell), ada, accepted},
		{"§4 claim: a cell held by another is 409", held, bob, problem.KindConflict},
		{"§4 claim: the holder claiming again is 409", held, ada, problem.KindConflict},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := tc.plot
			ev, err := p.Claim(tc.by, "t2", at)
			checkKind(t, err, tc.want)
			if err != nil {
				if p != tc.plot {
					t.Fatalf("a refused claim changes nothing: %+v", p)
				}
				return
			}
			want := PlotClaimed{PlotID: "plot_x3_y4", Cell: cell, Owner: "ada", DisplayName: "Ada",
				At: time.Date(2026, 11, 22, 8, 15, 3, 127e6, time.UTC), Version: 1}
			if ev != want {
				t.Fatalf("event %+v, want %+v", ev, want)
			}
			if !p.HeldBy("ada") || p.Tenancy != "t2" || !p.ClaimedAt.Equal(want.At) || p.ClaimedAt.Location() != time.UTC {
				t.Fatalf("claimed plot: %+v", p)
			}
		})
	}

	t.Run("§4 abandon: the cell is free again and the event names the last holder", func(t *testing.T) {
		t.Parallel()
		p := held
		ev := p.Release(at)
		if want := (PlotReleased{PlotID: "plot_x3_y4", Cell: cell, Owner: "ada", At: time.Date(2026, 11, 22, 8, 15, 3, 127e6, time.UTC), Version: 2}); ev != want {
			t.Fatalf("event %+v, want %+v", ev, want)
		}
		if p != (Plot{ID: "plot_x3_y4", Cell: cell, Version: 1}) || p.HeldBy("ada") {
			t.Fatalf("released plot: %+v", p)
		}
	})
}

func TestUsageTake(t *testing.T) {
	t.Parallel()
	full := Usage{Bytes: PlotQuotaBytes - 10, Files: 3}
	if err := full.Take(Change{Bytes: 11, Files: 1}); err == nil || full.Bytes != PlotQuotaBytes-10 {
		t.Fatalf("a change over the quota is refused and changes nothing: %v %+v", err, full)
	}
	checkKind(t, full.Take(Change{Bytes: 11, Files: 1}), problem.KindTooLarge)
	if err := full.Take(Change{Bytes: 10, Files: 1}); err != nil || full != (Usage{Bytes: PlotQuotaBytes, Files: 4}) {
		t.Fatalf("a change that fits: %v %+v", err, full)
	}
	full.Apply(Change{Bytes: -10, Files: -1})
	if full != (Usage{Bytes: PlotQuotaBytes - 10, Files: 3}) {
		t.Fatalf("space given back: %+v", full)
	}
}
