package domain

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"
)

const bob = "emb_ffffeeeeddddccccbbbbaaaa"

// ev wraps a payload with a CloudEvents id and type.
func ev(id string, data any) Event {
	return Event{ID: id, Type: fmt.Sprintf("%T", data), Time: at, Data: data}
}

// applyAll plans and commits each event as the aggregator does, with the
// store accepting every feed entry.
func applyAll(t *testing.T, p *Projection, evs ...Event) {
	t.Helper()
	for _, e := range evs {
		ch, err := p.Plan(e)
		if err != nil {
			t.Fatalf("plan %s: %v", e.ID, err)
		}
		p.Commit(ch, true)
	}
}

func render(t *testing.T, p *Projection) string {
	t.Helper()
	b, err := json.Marshal(p.Bulletin(WorldConfig{}.WithDefaults(at)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func tm(minute int) time.Time { return at.Add(time.Duration(minute) * time.Minute) }

func TestProjectionApplyRules(t *testing.T) {
	t.Parallel()
	registered := CitizenRegistered{AgentID: alice, Name: "Ada", CitizenNumber: 1, RegisteredAt: tm(0), Version: 1}
	renamed := CitizenUpdated{AgentID: alice, Name: "Ada L.", UpdatedAt: tm(1), Version: 2}
	tombstoned := CitizenTombstoned{AgentID: alice, TombstonedAt: tm(2), Version: 3}
	claimed := PlotClaimed{PlotID: "plot_x1_y2", X: 1, Y: 2, OwnerAgentID: alice, DisplayName: "Ada's", ClaimedAt: tm(0), Version: 1}
	released := PlotReleased{PlotID: "plot_x1_y2", X: 1, Y: 2, OwnerAgentID: alice, ReleasedAt: tm(1), Version: 2}
	filed := TicketFiled{TicketID: "tkt_00000001", Category: "bug", Title: "Broken", Severity: "high", Status: "open", FiledBy: alice, CreatedAt: tm(0), Version: 1}
	upvoted := TicketUpvoted{TicketID: "tkt_00000001", Upvotes: 1, At: tm(1), Version: 2}
	resolved := TicketStatusChanged{TicketID: "tkt_00000001", From: "open", To: "resolved", ChangedAt: tm(2),
		Category: "bug", Title: "Broken", CreatedAt: tm(0), Version: 3}

	cases := []struct {
		name   string
		events []Event
		check  func(p *Projection) error
	}{
		{"CONTRACT §6 population counts a registered citizen", []Event{ev("e1", registered)},
			func(p *Projection) error { return want(p.Population(), 1, "population") }},
		{"CONTRACT §6 the same event twice counts once", []Event{ev("e1", registered), ev("e1", registered)},
			func(p *Projection) error { return want(p.Population(), 1, "population") }},
		{"CONTRACT §6 redelivery under a new id (outbox retry) counts once", []Event{ev("e1", registered), ev("e1-retry", registered)},
			func(p *Projection) error { return want(p.Population(), 1, "population") }},
		{"CONTRACT §3 a tombstoned citizen stops counting", []Event{ev("e1", registered), ev("e2", tombstoned)},
			func(p *Projection) error { return want(p.Population(), 0, "population") }},
		{"CONTRACT §6 a late registration cannot revive a tombstoned citizen", []Event{ev("e2", tombstoned), ev("e1", registered)},
			func(p *Projection) error {
				c := p.citizens[alice]
				if err := want(p.Population(), 0, "population"); err != nil {
					return err
				}
				if c.RegisteredAt.IsZero() || c.CitizenNumber != 1 {
					return fmt.Errorf("facts of the late registration were not filled in: %+v", c)
				}
				return nil
			}},
		{"CONTRACT §6 a late registration cannot undo a rename", []Event{ev("e1b", renamed), ev("e1", registered)},
			func(p *Projection) error { return wantS(p.citizens[alice].Name, "Ada L.", "name") }},
		{"CONTRACT §11 plots_claimed counts citizens' plots, not the commons", []Event{ev("p1", claimed),
			ev("p0", PlotClaimed{PlotID: CommonsPlotID, OwnerAgentID: SystemCommonsID, DisplayName: CommonsDisplayName, ClaimedAt: tm(0), Version: 1})},
			func(p *Projection) error { return want(p.PlotsClaimed(), 1, "plots_claimed") }},
		{"CONTRACT §4 a released plot stops counting", []Event{ev("p1", claimed), ev("p2", released)},
			func(p *Projection) error { return want(p.PlotsClaimed(), 0, "plots_claimed") }},
		{"CONTRACT §6 a claim arriving after its release is stale", []Event{ev("p2", released), ev("p1", claimed)},
			func(p *Projection) error { return want(p.PlotsClaimed(), 0, "plots_claimed") }},
		{"CONTRACT §6 open tickets counts open ones", []Event{ev("t1", filed)},
			func(p *Projection) error { return want(p.OpenTickets(), 1, "open_tickets") }},
		{"CONTRACT §6 a status change is never overwritten by the older filing", []Event{ev("t3", resolved), ev("t1", filed)},
			func(p *Projection) error {
				tk := p.tickets["tkt_00000001"]
				if err := wantS(tk.Status, "resolved", "status"); err != nil {
					return err
				}
				if tk.Severity != "high" || tk.FiledBy != alice {
					return fmt.Errorf("the filing's facts were not filled in: %+v", tk)
				}
				return want(p.OpenTickets(), 0, "open_tickets")
			}},
		{"CONTRACT §6 an upvote (newer version) before the filing still lets the filing set the status", []Event{ev("t2", upvoted), ev("t1", filed)},
			func(p *Projection) error {
				tk := p.tickets["tkt_00000001"]
				if tk.Status != "open" || tk.Upvotes != 1 {
					return fmt.Errorf("ticket = %+v", tk)
				}
				return want(p.OpenTickets(), 1, "open_tickets")
			}},
		{"CONTRACT §5 a ticket seen only through its status change is still shown", []Event{ev("t3", TicketStatusChanged{TicketID: "tkt_00000002",
			From: "open", To: "acknowledged", Category: "docs", Title: "Typo", CreatedAt: tm(0), Version: 2})},
			func(p *Projection) error {
				tk := p.tickets["tkt_00000002"]
				if tk.Title != "Typo" || tk.Category != "docs" || tk.CreatedAt.IsZero() {
					return fmt.Errorf("ticket = %+v", tk)
				}
				return nil
			}},
		{"CONTRACT §7 counters of an older vote never replace newer ones", []Event{
			ev("v2", VoteCast{VoteID: "vote_00000002", ProposalID: "prop_00000001", CastAt: tm(2), Tally: Tally{For: 2}, Version: 3}),
			ev("v1", VoteCast{VoteID: "vote_00000001", ProposalID: "prop_00000001", CastAt: tm(1), Tally: Tally{For: 1}, Version: 2})},
			func(p *Projection) error { return want(int(p.proposals["prop_00000001"].Tally.For), 2, "votes_for") }},
		{"CONTRACT §7 an election's status is never overwritten by its opening", []Event{
			ev("x2", ElectionStatusChanged{ElectionID: "elec_00000001", Role: "chief", From: "nominating", To: "voting", ChangedAt: tm(2), Version: 2}),
			ev("x1", ElectionOpened{ElectionID: "elec_00000001", Role: "chief", Status: "nominating", OpenedAt: tm(0),
				NominationsEndAt: tm(1), VotingEndsAt: tm(3), Version: 1})},
			func(p *Projection) error {
				e := p.elections["elec_00000001"]
				if e.Status != "voting" || e.OpenedAt.IsZero() || e.VotingEndsAt.IsZero() {
					return fmt.Errorf("election = %+v", e)
				}
				return nil
			}},
		{"CONTRACT §7 a newer term replaces the older; the older's end does not end it", []Event{
			ev("s1", StewardElected{AgentID: alice, Role: "land", TermStart: tm(0), TermEnd: tm(60), TermNumber: 1}),
			ev("s3", StewardElected{AgentID: bob, Role: "land", TermStart: tm(70), TermEnd: tm(130), TermNumber: 1}),
			ev("s2", StewardTermEnded{AgentID: alice, Role: "land", EndedAt: tm(60), Reason: "expired"})},
			func(p *Projection) error {
				s := p.stewards["land"]
				if s.AgentID != bob || !s.Active {
					return fmt.Errorf("steward = %+v", s)
				}
				return nil
			}},
		{"CONTRACT §7 an older term arriving late is stale", []Event{
			ev("s3", StewardElected{AgentID: bob, Role: "land", TermStart: tm(70), TermEnd: tm(130), TermNumber: 1}),
			ev("s1", StewardElected{AgentID: alice, Role: "land", TermStart: tm(0), TermEnd: tm(60), TermNumber: 1})},
			func(p *Projection) error { return wantS(p.stewards["land"].AgentID, bob, "steward") }},
		{"CONTRACT §7 a recall ends the term", []Event{
			ev("s1", StewardElected{AgentID: alice, Role: "peace", TermStart: tm(0), TermEnd: tm(60), TermNumber: 1}),
			ev("s2", StewardTermEnded{AgentID: alice, Role: "peace", EndedAt: tm(30), Reason: "recalled"})},
			func(p *Projection) error {
				if p.stewards["peace"].Active {
					return errors.New("term still active")
				}
				return nil
			}},
		{"CONTRACT §7 an old end redelivered cannot end the agent's next term", []Event{
			ev("s1", StewardElected{AgentID: alice, Role: "chief", TermStart: tm(200), TermEnd: tm(260), TermNumber: 2}),
			ev("s0", StewardTermEnded{AgentID: alice, Role: "chief", EndedAt: tm(60), Reason: "expired"})},
			func(p *Projection) error {
				if !p.stewards["chief"].Active {
					return errors.New("second term ended by the first term's end")
				}
				return nil
			}},
		{"CONTRACT §4 the garden file count follows the latest garden event", []Event{
			ev("g1", GardenWritten{Verb: Planted, PlotID: CommonsPlotID, Path: "/garden/a/b.md", AgentID: alice, GardenFiles: 1, At: tm(0)}),
			ev("g3", GardenWritten{Verb: Planted, PlotID: CommonsPlotID, Path: "/garden/a/c.md", AgentID: alice, GardenFiles: 2, At: tm(2)}),
			ev("g2", GardenWritten{Verb: Tended, PlotID: CommonsPlotID, Path: "/garden/index.md", AgentID: alice, GardenFiles: 1, At: tm(1)})},
			func(p *Projection) error { return want(int(p.garden.Files), 2, "garden files") }},
		{"CONTRACT §6 a late pin change is stale", []Event{
			ev("a1", AnnouncementPosted{PostID: "ann_00000001", Title: "t", Content: "c", Pinned: true, PostedAt: tm(0), Version: 1}),
			ev("a3", AnnouncementPinned{PostID: "ann_00000001", Pinned: false, At: tm(2), Version: 3}),
			ev("a2", AnnouncementPinned{PostID: "ann_00000001", Pinned: true, At: tm(1), Version: 2})},
			func(p *Projection) error {
				if p.announcements["ann_00000001"].Pinned {
					return errors.New("an older pin overwrote a newer unpin")
				}
				return nil
			}},
		{"CONTRACT §6 a pin seen before the post keeps the post's text when it comes", []Event{
			ev("a2", AnnouncementPinned{PostID: "ann_00000001", Pinned: true, At: tm(1), Version: 2}),
			ev("a1", AnnouncementPosted{PostID: "ann_00000001", Title: "t", Content: "c", Pinned: false, PostedAt: tm(0), Version: 1})},
			func(p *Projection) error {
				a := p.announcements["ann_00000001"]
				if !a.Pinned || a.Content != "c" || a.PostedAt.IsZero() {
					return fmt.Errorf("announcement = %+v", a)
				}
				return nil
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := NewProjection()
			applyAll(t, p, c.events...)
			if err := c.check(p); err != nil {
				t.Fatal(err)
			}
			// Idempotence: delivering every event again plans nothing and
			// leaves the document byte for byte as it was.
			before := render(t, p)
			for _, e := range c.events {
				ch, err := p.Plan(e)
				if err != nil {
					t.Fatal(err)
				}
				if !ch.Empty() {
					t.Fatalf("redelivery of %s planned a change: %+v", e.ID, ch)
				}
				p.Commit(ch, true)
			}
			if after := render(t, p); after != before {
				t.Fatalf("redelivery changed the bulletin:\n%s\n%s", before, after)
			}
			if err := c.check(p); err != nil {
				t.Fatalf("after redelivery: %v", err)
			}
		})
	}
}

func want(got, exp int, what string) error {
	if got != exp {
		return fmt.Errorf("%s = %d, want %d", what, got, exp)
	}
	return nil
}

func wantS(got, exp, what string) error {
	if got != exp {
		return fmt.Errorf("%s = %q, want %q", what, got, exp)
	}
	return nil
}

// permutations of 0..n-1.
func permutations(n int) [][]int {
	if n == 1 {
		return [][]int{{0}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for i := 0; i <= len(p); i++ {
			q := append(append(append([]int{}, p[:i]...), n-1), p[i:]...)
			out = append(out, q)
		}
	}
	return out
}

// TestAnyOrderSameState delivers one aggregate's events in every order:
// the records must end the same as in publication order (CONTRACT §6:
// events for one aggregate arriving out of order are handled).
func TestAnyOrderSameState(t *testing.T) {
	t.Parallel()
	histories := map[string][]Event{
		"citizen": {
			ev("c1", CitizenRegistered{AgentID: alice, Name: "Ada", CitizenNumber: 7, RegisteredAt: tm(0), Version: 1}),
			ev("c2", CitizenUpdated{AgentID: alice, Name: "Ada L.", UpdatedAt: tm(1), Version: 2}),
			ev("c3", CitizenTombstoned{AgentID: alice, TombstonedAt: tm(2), Version: 3}),
			ev("c4", CitizenUpdated{AgentID: alice, Name: "Ada Lovelace", UpdatedAt: tm(3), Version: 4}),
		},
		"ticket": {
			ev("t1", TicketFiled{TicketID: "tkt_00000001", Category: "bug", Title: "B", Severity: "low", Status: "open", FiledBy: alice, CreatedAt: tm(0), Version: 1}),
			ev("t2", TicketUpvoted{TicketID: "tkt_00000001", Upvotes: 1, At: tm(1), Version: 2}),
			ev("t3", TicketStatusChanged{TicketID: "tkt_00000001", From: "open", To: "acknowledged", Category: "bug", Title: "B", CreatedAt: tm(0), Version: 3}),
			ev("t4", TicketUpvoted{TicketID: "tkt_00000001", Upvotes: 2, At: tm(3), Version: 4}),
			ev("t5", TicketStatusChanged{TicketID: "tkt_00000001", From: "acknowledged", To: "resolved", Category: "bug", Title: "B", CreatedAt: tm(0), Version: 5}),
		},
		"proposal": {
			ev("r1", ProposalCreated{ProposalID: "prop_00000001", Type: "standard", Title: "P", ProposedBy: alice, Status: "discussion",
				CreatedAt: tm(0), DiscussionEndsAt: tm(10), VotingEndsAt: tm(20), Version: 1}),
			ev("r2", ProposalStatusChanged{ProposalID: "prop_00000001", Type: "standard", Title: "P", From: "discussion", To: "voting", TotalEligible: 3, ChangedAt: tm(10), Version: 2}),
			ev("r3", VoteCast{VoteID: "vote_00000001", ProposalID: "prop_00000001", CastAt: tm(11), Tally: Tally{For: 1}, Version: 3}),
			ev("r4", VoteCast{VoteID: "vote_00000002", ProposalID: "prop_00000001", CastAt: tm(12), Tally: Tally{For: 1, Against: 1}, Version: 4}),
			ev("r5", ProposalStatusChanged{ProposalID: "prop_00000001", Type: "standard", Title: "P", From: "voting", To: "failed",
				Tally: Tally{For: 1, Against: 1}, TotalEligible: 3, ChangedAt: tm(20), Version: 5}),
		},
		"plot": {
			ev("p1", PlotClaimed{PlotID: "plot_x5_y5", X: 5, Y: 5, OwnerAgentID: alice, ClaimedAt: tm(0), Version: 1}),
			ev("p2", PlotReleased{PlotID: "plot_x5_y5", X: 5, Y: 5, OwnerAgentID: alice, ReleasedAt: tm(1), Version: 2}),
			ev("p3", PlotClaimed{PlotID: "plot_x5_y5", X: 5, Y: 5, OwnerAgentID: bob, DisplayName: "Bob's", ClaimedAt: tm(2), Version: 3}),
		},
		"election": {
			ev("x1", ElectionOpened{ElectionID: "elec_00000001", Role: "archive", Status: "nominating", OpenedAt: tm(0), NominationsEndAt: tm(1), VotingEndsAt: tm(2), Version: 1}),
			ev("x2", ElectionStatusChanged{ElectionID: "elec_00000001", Role: "archive", From: "nominating", To: "voting", ChangedAt: tm(1), Version: 2}),
			ev("x3", ElectionStatusChanged{ElectionID: "elec_00000001", Role: "archive", From: "voting", To: "closed", WinnerAgentID: bob, ChangedAt: tm(2), Version: 3}),
		},
		"announcement": {
			ev("a1", AnnouncementPosted{PostID: "ann_00000001", Title: "T", Content: "C", Pinned: true, PostedAt: tm(0), Version: 1}),
			ev("a2", AnnouncementPinned{PostID: "ann_00000001", Pinned: false, At: tm(1), Version: 2}),
			ev("a3", AnnouncementPinned{PostID: "ann_00000001", Pinned: true, At: tm(2), Version: 3}),
		},
	}
	for name, history := range histories {
		t.Run("CONTRACT §6 "+name, func(t *testing.T) {
			t.Parallel()
			inOrder := NewProjection()
			applyAll(t, inOrder, history...)
			wantDoc := render(t, inOrder)
			for _, perm := range permutations(len(history)) {
				p := NewProjection()
				for _, i := range perm {
					applyAll(t, p, history[i])
				}
				if got := render(t, p); got != wantDoc {
					t.Fatalf("order %v gives a different bulletin:\n got %s\nwant %s", perm, got, wantDoc)
				}
				if p.Population() != inOrder.Population() || p.PlotsClaimed() != inOrder.PlotsClaimed() || p.OpenTickets() != inOrder.OpenTickets() {
					t.Fatalf("order %v gives different counters", perm)
				}
			}
		})
	}
}

func TestPlanRejectsEventsThatCanNeverApply(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		ev   Event
	}{
		{"no event id", Event{Type: "citizen.registered", Data: CitizenRegistered{AgentID: alice, Version: 1}}},
		{"no aggregate id", ev("e", CitizenRegistered{Version: 1})},
		{"version 0", ev("e", TicketFiled{TicketID: "tkt_00000001"})},
		{"vote without vote id", ev("e", VoteCast{ProposalID: "prop_00000001", Version: 2})},
		{"garden without path", ev("e", GardenWritten{Verb: Planted})},
		{"garden with an unknown verb", ev("e", GardenWritten{Verb: "weeded", Path: "/garden/a/b.md"})},
		{"steward without role", ev("e", StewardElected{AgentID: alice, TermStart: tm(0)})},
		{"unexpected payload", ev("e", struct{}{})},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := NewProjection()
			before := render(t, p)
			if _, err := p.Plan(c.ev); !errors.Is(err, ErrInvalidEvent) {
				t.Fatalf("want ErrInvalidEvent, got %v", err)
			}
			if render(t, p) != before {
				t.Fatal("a rejected event changed the state")
			}
		})
	}
	ch, err := NewProjection().Plan(Event{ID: "m1", Type: "message.sent"})
	if err != nil || !ch.Empty() {
		t.Fatalf("an event the bulletin does not project is a no-op: %+v, %v", ch, err)
	}
}

func TestFeedKeepsNewestFiftyOnceEach(t *testing.T) {
	t.Parallel()
	p := NewProjection()
	// 60 tickets delivered oldest last, so the window must sort, not append.
	for i := 59; i >= 0; i-- {
		applyAll(t, p, ev(fmt.Sprintf("e%02d", i), TicketFiled{TicketID: fmt.Sprintf("tkt_%08d", i), Title: "t",
			Status: "open", CreatedAt: tm(i), Version: 1}))
	}
	feed := p.Feed()
	if len(feed) != FeedWindow {
		t.Fatalf("CONTRACT §6 feed holds the 50 newest, got %d", len(feed))
	}
	for i, e := range feed {
		if want := fmt.Sprintf("tkt_%08d", 59-i); e.Item.ID != want {
			t.Fatalf("feed[%d] = %s, want %s (newest at first)", i, e.Item.ID, want)
		}
	}
	// An event older than the window, seen for the first time, stays out.
	applyAll(t, p, ev("old", TicketFiled{TicketID: "tkt_old", Title: "t", Status: "open", CreatedAt: tm(-5), Version: 1}))
	if got := p.Feed(); got[len(got)-1].Item.ID != "tkt_00000010" {
		t.Fatalf("an old entry entered the window: %s", got[len(got)-1].Item.ID)
	}
	// A feed entry the store already held (inserted before a crash) is not
	// added again.
	ch, _ := p.Plan(ev("dup", TicketFiled{TicketID: "tkt_dup", Title: "t", Status: "open", CreatedAt: tm(100), Version: 1}))
	p.Commit(ch, false)
	if p.Feed()[0].Item.ID == "tkt_dup" {
		t.Fatal("an entry the store refused as a duplicate entered memory")
	}
}

func TestFeedLineIndependentOfVersion(t *testing.T) {
	t.Parallel()
	p := NewProjection()
	applyAll(t, p,
		ev("v2", VoteCast{VoteID: "vote_00000002", ProposalID: "prop_00000001", CastAt: tm(2), Tally: Tally{For: 2}, Version: 3}),
		ev("v1", VoteCast{VoteID: "vote_00000001", ProposalID: "prop_00000001", CastAt: tm(1), Tally: Tally{For: 1}, Version: 2}))
	feed := p.Feed()
	if len(feed) != 2 || feed[0].Item.ID != "vote_00000002" || feed[1].Item.ID != "vote_00000001" {
		t.Fatalf("SEED §6 each accepted ballot is a vote feed item, even when its counters are stale: %+v", feed)
	}
}
