package domain

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// The lists kept as records change are the lists a walk of every record
// selects, after every change: new records, records leaving the selection
// (resolved tickets, departed citizens, released plots), records coming
// back, and ties in the order.
func TestShownListsAgreeWithAWalkOfEveryRecord(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	p := NewProjection()
	// small lists, so that records enter and leave a full one often
	p.shown.citizens.k, p.shown.plots.k, p.shown.tickets.k = 4, 6, 5
	full := func(m map[string]Ticket) []Ticket { return firstK(filtered(m, Ticket.IsOpen), 5, Ticket.newerThan) }
	stale := 0
	for step := range 5000 {
		switch rng.IntN(3) {
		case 0:
			id := fmt.Sprintf("tkt_%02d", rng.IntN(40))
			tk := p.ticket(id)
			tk.CreatedAt, tk.Status = tm(rng.IntN(20)), []string{TicketOpen, TicketOpen, "resolved"}[rng.IntN(3)]
			p.put(tk)
		case 1:
			id := fmt.Sprintf("emb_%02d", rng.IntN(40))
			c := p.citizen(id)
			c.RegisteredAt, c.CitizenNumber, c.Living = tm(rng.IntN(20)), int64(rng.IntN(5)), rng.IntN(4) > 0
			p.put(c)
		default:
			x, y := rng.IntN(6), rng.IntN(6)
			pl := p.plot(fmt.Sprintf("plot_x%d_y%d", x, y))
			pl.X, pl.Y, pl.Claimed = x, y, rng.IntN(3) > 0
			p.put(pl)
		}
		for _, s := range []bool{p.shown.tickets.stale, p.shown.citizens.stale, p.shown.plots.stale} {
			if s {
				stale++
			}
		}
		if got, want := p.shown.tickets.list(func() []Ticket { return full(p.tickets) }), full(p.tickets); !same(got, want) {
			t.Fatalf("step %d: open tickets %v, a walk selects %v", step, ids(got, func(t Ticket) string { return t.TicketID }), ids(want, func(t Ticket) string { return t.TicketID }))
		}
		wantC := firstK(filtered(p.citizens, citizenListed), 4, citizenNewer)
		if got := p.shown.citizens.list(func() []Citizen { return wantC }); !same(got, wantC) {
			t.Fatalf("step %d: citizens %v, a walk selects %v", step, ids(got, func(c Citizen) string { return c.AgentID }), ids(wantC, func(c Citizen) string { return c.AgentID }))
		}
		wantP := firstK(filtered(p.plots, plotListed), 6, plotFirst)
		if got := p.shown.plots.list(func() []Plot { return wantP }); !same(got, wantP) {
			t.Fatalf("step %d: plots %v, a walk selects %v", step, ids(got, func(p Plot) string { return p.PlotID }), ids(wantP, func(p Plot) string { return p.PlotID }))
		}
	}
	// Most changes keep the lists without a walk.
	if stale > 5000/2 {
		t.Fatalf("%d of 15000 list changes needed a walk of every record", stale)
	}
}

func ids[T any](v []T, key func(T) string) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = key(x)
	}
	return out
}

func same[T any](a, b []T) bool { return len(a) == 0 && len(b) == 0 || reflect.DeepEqual(a, b) }
