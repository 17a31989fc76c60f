package domain

import (
	"testing"
	"time"

	"sharedworld.dev/pkg/problem"
)

func TestHoldsCountUntilSettled(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	hold := func(id string, c Change) Hold {
		return Hold{ID: id, Path: "/" + id, Change: c, Until: now.Add(HoldLife)}
	}
	var a Account
	for _, h := range []Hold{hold("a", Change{Bytes: 5, Files: 1}), hold("b", Change{Bytes: 7, Files: 1}),
		hold("c", Change{Bytes: 9, Files: 1}), hold("same", Change{})} {
		if err := a.Reserve(h); err != nil {
			t.Fatal(err)
		}
	}
	if a.Usage != (Usage{Bytes: 21, Files: 3}) || len(a.Holds) != 3 {
		t.Fatalf("three holds taken (a hold of no change is not recorded): %+v", a)
	}
	a.Confirm("a")
	a.Release("b")
	a.Release("b") // given back once only
	a.Confirm("unknown")
	if a.Usage != (Usage{Bytes: 14, Files: 2}) || len(a.Holds) != 1 || a.Holds[0].ID != "c" {
		t.Fatalf("a confirmed keeps its room, b released gives it back: %+v", a)
	}

	// A hold taken for alive is not settled; a lapsed one waits for its head.
	lapsed := func(h Hold) bool { return h.Lapsed(now.Add(HoldLife + HoldGrace)) }
	if got, _ := a.Settle(lapsed, nil); len(got) != 0 {
		t.Fatalf("c has not lapsed at its Until plus the grace: %v", got)
	}
	dead := func(h Hold) bool { return h.Lapsed(now.Add(HoldLife + HoldGrace + time.Millisecond)) }
	if got, _ := a.Settle(dead, map[string]bool{}); len(got) != 1 || got[0].ID != "c" || a.Usage.Bytes != 14 {
		t.Fatalf("a lapsed hold is decided by its head before it changes anything: %v %+v", got, a)
	}
	landed := a
	landed.Holds = append([]Hold(nil), a.Holds...)
	if got, rel := landed.Settle(dead, map[string]bool{"c": true}); len(got) != 0 || len(rel) != 0 || landed.Usage != (Usage{Bytes: 14, Files: 2}) || len(landed.Holds) != 0 {
		t.Fatalf("a hold whose head names it keeps its room: %+v", landed)
	}
	if got, rel := a.Settle(dead, map[string]bool{"c": false}); len(rel) != 1 || len(got) != 0 || a.Usage != (Usage{Bytes: 5, Files: 1}) || len(a.Holds) != 0 {
		t.Fatalf("a hold whose file never landed gives its room back: %+v", a)
	}
}

func TestHoldsAreRefusedPastTheQuota(t *testing.T) {
	t.Parallel()
	a := Account{Usage: Usage{Bytes: PlotQuotaBytes - 1, Files: 1}}
	err := a.Reserve(Hold{ID: "x", Change: WriteChange(2, 0, false)})
	if pe, ok := problem.As(err); !ok || pe.Kind != problem.KindTooLarge {
		t.Fatalf("§4 a hold past the quota is 413: %v", err)
	}
	if len(a.Holds) != 0 || a.Usage != (Usage{Bytes: PlotQuotaBytes - 1, Files: 1}) {
		t.Fatalf("a refused hold leaves nothing: %+v", a)
	}
}

func TestStampDatesWritesInTheOrderOfTheirHolds(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 9, 0, 0, 123456789, time.UTC)
	var a Account
	first, second, third := a.Stamp(now), a.Stamp(now), a.Stamp(now.Add(-time.Second))
	if !first.Equal(now.Truncate(time.Millisecond)) || second.Sub(first) != time.Millisecond || third.Sub(second) != time.Millisecond {
		t.Fatalf("writes of one millisecond, and one dated earlier, are dated apart and in order: %v %v %v", first, second, third)
	}
	if later := a.Stamp(now.Add(time.Hour)); !later.Equal(now.Add(time.Hour).Truncate(time.Millisecond)) {
		t.Fatalf("a later write keeps its own time: %v", later)
	}
}

// A removal's room comes back only once it lands, so Usage overstates
// while it is pending; Expected is what the account holds once every
// recorded hold landed, the count a garden event carries.
func TestExpectedCountsPendingRemovalsOut(t *testing.T) {
	t.Parallel()
	a := Account{Usage: Usage{Bytes: 10, Files: 2}}
	removal := Hold{ID: "rm", Frees: DeleteChange(4)}
	planting := Hold{ID: "pl", Change: WriteChange(3, 0, false)}
	for _, h := range []Hold{removal, planting} {
		if err := a.Reserve(h); err != nil {
			t.Fatal(err)
		}
	}
	if a.Usage != (Usage{Bytes: 13, Files: 3}) || a.Expected() != (Usage{Bytes: 9, Files: 2}) {
		t.Fatalf("usage %+v, expected %+v; want 13 B/3 files and 9 B/2 files", a.Usage, a.Expected())
	}
	a.Confirm("rm")
	a.Confirm("pl")
	if a.Usage != a.Expected() || a.Usage != (Usage{Bytes: 9, Files: 2}) {
		t.Fatalf("once both landed, usage %+v and expected %+v agree at 9 B/2 files", a.Usage, a.Expected())
	}
}
