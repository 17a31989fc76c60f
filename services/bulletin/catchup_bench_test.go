package bulletin_test

import (
	"fmt"
	"testing"
	"time"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/testkit"
	governancev1 "sharedworld.dev/proto/governance/v1"
	identityv1 "sharedworld.dev/proto/identity/v1"
	plotsv1 "sharedworld.dev/proto/plots/v1"
	ticketsv1 "sharedworld.dev/proto/tickets/v1"
	"sharedworld.dev/services/bulletin"
)

// mixedEvents is n events as a busy world publishes them: registrations,
// plot claims, tickets filed and upvoted, garden plantings and votes, each
// aggregate's events in version order.
func mixedEvents(n int) []events.Event {
	evs := make([]events.Event, 0, n+1)
	prop := "prop_00000001"
	evs = append(evs, ev(prop, &governancev1.ProposalCreated{ProposalId: prop, Type: "standard", Title: "Plant trees", ProposedBy: ada,
		Status: "voting", CreatedAt: pb(sec(0)), DiscussionEndsAt: pb(sec(0)), VotingEndsAt: pb(sec(0).Add(120 * time.Hour)), Version: 1}, sec(0)))
	for i := 0; len(evs) < n; i++ {
		at := sec(i + 1)
		switch i % 6 {
		case 0:
			id := agent(fmt.Sprintf("%04x", i))
			evs = append(evs, ev(id, &identityv1.CitizenRegistered{AgentId: id, Name: fmt.Sprintf("Agent %d", i), CitizenNumber: int64(i + 1), RegisteredAt: pb(at), Version: 1}, at))
		case 1:
			id := fmt.Sprintf("plot_x%d_y%d", i%100, i/100)
			evs = append(evs, ev(id, &plotsv1.PlotClaimed{PlotId: id, X: int32(i % 100), Y: int32(i / 100), OwnerAgentId: ada, ClaimedAt: pb(at), Version: 1}, at))
		case 2:
			id := fmt.Sprintf("tkt_%08x", i)
			evs = append(evs, ev(id, &ticketsv1.TicketFiled{TicketId: id, Category: "bug", Title: fmt.Sprintf("Bug %d", i), Severity: "low",
				Status: "open", FiledBy: ada, CreatedAt: pb(at), Version: 1}, at))
		case 3:
			id := fmt.Sprintf("tkt_%08x", i-1)
			evs = append(evs, ev(id, &ticketsv1.TicketUpvoted{TicketId: id, AgentId: bob, Upvotes: 1, At: pb(at), Version: 2}, at))
		case 4:
			evs = append(evs, ev("plot_0_0", &plotsv1.GardenPlanted{PlotId: "plot_0_0", Path: gardenPath(i), AgentId: ada, AgentName: "Ada",
				GardenFiles: int64(i/6 + 1), At: pb(at)}, at))
		case 5:
			evs = append(evs, ev(prop, &governancev1.VoteCast{VoteId: fmt.Sprintf("vote_%08x", i), ProposalId: prop, CastAt: pb(at),
				VotesFor: int64(i/6 + 1), Version: uint64(i/6 + 2)}, at))
		}
	}
	return evs
}

// BenchmarkCatchUp publishes a backlog of mixed events while the bulletin
// is stopped, then starts it and times how long it takes to apply them
// all: the catch-up after an outage. Reports events/s from the first event
// applied to the last (the consumer group's join before it is reported
// apart, as join-ms). Run in each mode:
//
//	SHAREDWORLD_TEST_BACKEND=embedded go test -run '^$' -bench CatchUp -benchtime 1x .
//	SHAREDWORLD_TEST_BACKEND=shared   go test -run '^$' -bench CatchUp -benchtime 1x .
func BenchmarkCatchUp(b *testing.B) {
	const backlog = 5000
	evs := mixedEvents(backlog)
	var elapsed, joining time.Duration
	applied := 0
	for range b.N {
		b.StopTimer()
		kit := testkit.New(b)
		svc, err := bulletin.New(kit.Ctx(), kit.Deps(nil), bulletin.Options{})
		if err != nil {
			b.Fatal(err)
		}
		kit.Publish(evs...)
		b.StartTimer()
		start := time.Now()
		kit.Run(svc)
		testkit.Eventually(b, time.Minute, "first event applied", func() bool { return svc.Handled() > 0 })
		first, firstDone := time.Now(), svc.Handled()
		joining += first.Sub(start)
		testkit.Eventually(b, 5*time.Minute, "backlog applied", func() bool { return svc.Handled() >= int64(len(evs)) })
		elapsed += time.Since(first)
		applied += len(evs) - int(firstDone)
	}
	b.ReportMetric(float64(applied)/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(joining.Milliseconds())/float64(b.N), "join-ms")
}
