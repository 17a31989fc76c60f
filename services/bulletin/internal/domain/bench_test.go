package domain

import (
	"fmt"
	"testing"
)

// bigWorld is a busy world: 5000 citizens, 2000 plots, 300 tickets,
// 40 announcements and a full feed.
func bigWorld(b *testing.B) *Projection {
	b.Helper()
	p := NewProjection()
	must := applier(b, p)
	for i := range 5000 {
		id := fmt.Sprintf("emb_%024x", i+1)
		must(ev("c"+id, CitizenRegistered{AgentID: id, Name: fmt.Sprintf("citizen %d", i), CitizenNumber: int64(i + 1), RegisteredAt: tm(i), Version: 1}))
		if i < 2000 {
			x, y := i%997+1, i/997
			must(ev(fmt.Sprintf("p%d", i), PlotClaimed{PlotID: fmt.Sprintf("plot_x%d_y%d", x, y), X: x, Y: y, OwnerAgentID: id, DisplayName: "home", Version: 1}))
		}
	}
	for i := range 300 {
		must(ev(fmt.Sprintf("t%d", i), TicketFiled{TicketID: fmt.Sprintf("tkt_%08x", i), Category: "bug", Title: "a ticket title", Status: "open", CreatedAt: tm(i), Version: 1}))
	}
	for i := range 40 {
		must(ev(fmt.Sprintf("a%d", i), AnnouncementPosted{PostID: fmt.Sprintf("ann_%08x", i), Title: "news", Content: "some news for everyone",
			Pinned: i == 39, PostedAt: tm(i), Version: 1}))
	}
	return p
}

// applier plans and commits events on p, failing b on a refused one.
func applier(b *testing.B, p *Projection) func(Event) {
	return func(e Event) {
		ch, err := p.Plan(e)
		if err != nil {
			b.Fatal(err)
		}
		p.Commit(ch, true)
	}
}

// BenchmarkApplyEvent measures planning and committing one event in memory
// (the aggregator's share of an apply, before the store write).
func BenchmarkApplyEvent(b *testing.B) {
	p := bigWorld(b)
	b.ResetTimer()
	for i := range b.N {
		ch, err := p.Plan(ev(fmt.Sprintf("bench%d", i), TicketFiled{TicketID: fmt.Sprintf("tkt_b%07x", i), Title: "t",
			Status: "open", CreatedAt: tm(10000 + i), Version: 1}))
		if err != nil {
			b.Fatal(err)
		}
		p.Commit(ch, true)
	}
}

// BenchmarkRenderAfterFeedEvent is a rendering after an event that touches
// the feed and the tickets (the common case): build and encode.
func BenchmarkRenderAfterFeedEvent(b *testing.B) {
	p := bigWorld(b)
	cfg := WorldConfig{}.WithDefaults(at)
	b.ResetTimer()
	size := 0
	for i := range b.N {
		ch, _ := p.Plan(ev(fmt.Sprintf("bench%d", i), TicketFiled{TicketID: fmt.Sprintf("tkt_b%07x", i), Title: "t",
			Status: "open", CreatedAt: tm(10000 + i), Version: 1}))
		p.Commit(ch, true)
		out, err := Encode(p.Bulletin(cfg))
		if err != nil {
			b.Fatal(err)
		}
		size = len(out)
	}
	b.ReportMetric(float64(size), "doc-bytes")
}

// BenchmarkRenderAfterPlotClaim is the costliest rendering: a claim makes
// the plots list be rebuilt from every plot.
func BenchmarkRenderAfterPlotClaim(b *testing.B) {
	p := bigWorld(b)
	cfg := WorldConfig{}.WithDefaults(at)
	b.ResetTimer()
	for i := range b.N {
		x, y := i%997+1, 100+i/997
		ch, _ := p.Plan(ev(fmt.Sprintf("bench%d", i), PlotClaimed{PlotID: fmt.Sprintf("plot_x%d_y%d", x, y), X: x, Y: y,
			OwnerAgentID: alice, Version: 1}))
		p.Commit(ch, true)
		if _, err := Encode(p.Bulletin(cfg)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRenderAfterSeeding is a rendering in the world (10,000
// citizens, as many plots, 100,000 open tickets) after a citizen registers,
// claims a plot and files a ticket, as each seeded citizen does: the lists
// shown must not cost a walk of every record.
//
//	go test -run '^$' -bench RenderAfterSeeding -benchtime 200x ./internal/domain/
func BenchmarkRenderAfterSeeding(b *testing.B) {
	p := NewProjection()
	must := applier(b, p)
	citizen := func(i int) {
		id := fmt.Sprintf("emb_%024x", i+1)
		must(ev("c"+id, CitizenRegistered{AgentID: id, Name: fmt.Sprintf("citizen %d", i), CitizenNumber: int64(i + 1), RegisteredAt: tm(i), Version: 1}))
		x, y := i%1000, 1+i/1000
		must(ev(fmt.Sprintf("p%d", i), PlotClaimed{PlotID: fmt.Sprintf("plot_x%d_y%d", x, y), X: x, Y: y, OwnerAgentID: id, DisplayName: "home", Version: 1}))
	}
	ticket := func(i int) {
		must(ev(fmt.Sprintf("t%d", i), TicketFiled{TicketID: fmt.Sprintf("tkt_%08x", i), Category: "bug", Title: "a ticket title", Status: "open", CreatedAt: tm(i), Version: 1}))
	}
	for i := range 10000 {
		citizen(i)
	}
	for i := range 100000 {
		ticket(i)
	}
	cfg := WorldConfig{}.WithDefaults(at)
	b.ResetTimer()
	for i := range b.N {
		citizen(10000 + i)
		ticket(100000 + i)
		if _, err := Encode(p.Bulletin(cfg)); err != nil {
			b.Fatal(err)
		}
	}
}
