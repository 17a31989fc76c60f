package domain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// TestBulletinDocumentExact renders a small world and compares the whole
// document, byte for byte, with the reviewed golden file: every field of
// SEED §2.2–2.10 in the seed's order, with links, garden and feedback
// exactly as the seed lists them.
func TestBulletinDocumentExact(t *testing.T) {
	t.Parallel()
	p := NewProjection()
	applyAll(t, p,
		ev("e1", CitizenRegistered{AgentID: alice, Name: "Ada", CitizenNumber: 1, RegisteredAt: tm(0), Version: 1}),
		ev("e2", CitizenRegistered{AgentID: bob, CitizenNumber: 2, RegisteredAt: tm(1), Version: 1}),
		ev("e3", PlotClaimed{PlotID: "plot_x1_y2", X: 1, Y: 2, OwnerAgentID: alice, DisplayName: "Ada's", ClaimedAt: tm(2), Version: 1}),
		ev("e4", GardenWritten{Verb: Planted, PlotID: CommonsPlotID, Path: "/garden/bob/poem.md", AgentID: bob, GardenFiles: 1, At: tm(3)}),
		ev("e5", TicketFiled{TicketID: "tkt_0000000a", Category: "docs", Title: "Docs unclear", Severity: "normal", Status: "open", FiledBy: alice, CreatedAt: tm(4), Version: 1}),
		ev("e6", VoteCast{VoteID: "vote_0000000b", ProposalID: "prop_0000000c", CastAt: tm(5), Tally: Tally{For: 1}, Version: 2}),
		ev("e7", AnnouncementPosted{PostID: "ann_0000000d", Title: "Welcome", Content: "Hello,\ncitizens.", Pinned: true, PostedAt: tm(6), Version: 1}),
	)
	got, err := json.MarshalIndent(p.Bulletin(WorldConfig{}.WithDefaults(at)), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/bulletin_small.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(want)) {
		t.Fatalf("SEED §2.2–2.10 document differs from the golden file:\n%s", got)
	}
}

// raw decodes the rendered document generically, to see nulls and [] as
// JSON shows them.
func raw(t *testing.T, p *Projection) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(render(t, p)), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestEmptyWorldDocument(t *testing.T) {
	t.Parallel()
	m := raw(t, NewProjection())
	for _, k := range []string{"ok", "world", "pinned_announcement", "pinned", "announcements", "events", "feed",
		"garden", "plots", "governance", "community", "feedback", "links"} {
		if _, ok := m[k]; !ok {
			t.Fatalf("SEED §2.2 field %q missing", k)
		}
	}
	if m["pinned_announcement"] != nil || m["pinned"] != nil {
		t.Fatal("CONTRACT §6 nothing pinned: pinned_announcement and pinned are null")
	}
	for _, k := range []string{"announcements", "events", "feed"} {
		if l, ok := m[k].([]any); !ok || len(l) != 0 {
			t.Fatalf("%s = %v, want []", k, m[k])
		}
	}
	gov := m["governance"].(map[string]any)
	for _, k := range []string{"active_proposals", "stewards", "upcoming_elections"} {
		if l, ok := gov[k].([]any); !ok || len(l) != 0 {
			t.Fatalf("SEED §2.8 %s = %v, want []", k, gov[k])
		}
	}
	plots := m["plots"].([]any)
	if len(plots) != 1 || plots[0].(map[string]any)["plot_id"] != CommonsPlotID {
		t.Fatalf("CONTRACT §6 the commons is on the board from the start: %v", plots)
	}
	w := m["world"].(map[string]any)
	if w["population"] != 0.0 || w["plots_claimed"] != 0.0 || w["phase"] != "Founding" {
		t.Fatalf("SEED §2.3 empty world: %v", w)
	}
}

func TestPlotsOrderAndCap(t *testing.T) {
	t.Parallel()
	p := NewProjection()
	r := rand.New(rand.NewPCG(1, 2))
	claimed := map[[2]int]bool{{0, 0}: true}
	for n := 1; len(claimed) < 1200; n++ {
		x, y := r.IntN(60), r.IntN(60)
		if claimed[[2]int{x, y}] {
			continue
		}
		claimed[[2]int{x, y}] = true
		applyAll(t, p, ev(fmt.Sprintf("c%d", n), PlotClaimed{PlotID: fmt.Sprintf("plot_x%d_y%d", x, y), X: x, Y: y,
			OwnerAgentID: alice, ClaimedAt: tm(n), Version: 1}))
	}
	b := p.Bulletin(WorldConfig{}.WithDefaults(at))
	if len(b.Plots) != PlotsShown {
		t.Fatalf("CONTRACT §11 at most the first 1000 plots, got %d", len(b.Plots))
	}
	if b.Plots[0].PlotID != CommonsPlotID {
		t.Fatalf("CONTRACT §11 the commons first, got %s", b.Plots[0].PlotID)
	}
	for i := 1; i < len(b.Plots); i++ {
		a, c := b.Plots[i-1], b.Plots[i]
		if a.X > c.X || (a.X == c.X && a.Y >= c.Y) {
			t.Fatalf("SEED §2.2 plots by x then y: %v before %v", a, c)
		}
	}
	// The 1000 shown are the first 1000 overall, not any 1000.
	var all [][2]int
	for c := range claimed {
		all = append(all, c)
	}
	last := b.Plots[len(b.Plots)-1]
	smaller := 0
	for _, c := range all {
		if c[0] < last.X || (c[0] == last.X && c[1] <= last.Y) {
			smaller++
		}
	}
	if smaller != PlotsShown {
		t.Fatalf("%d plots sort at or before the last shown, want %d", smaller, PlotsShown)
	}
	if p.PlotsClaimed() != 1199 {
		t.Fatalf("CONTRACT §11 plots_claimed counts every citizen plot, not just those shown: %d", p.PlotsClaimed())
	}
}

func TestListsShowNewest(t *testing.T) {
	t.Parallel()
	p := NewProjection()
	for i := range 15 {
		id := fmt.Sprintf("emb_%024x", i+1)
		applyAll(t, p,
			ev("c"+id, CitizenRegistered{AgentID: id, Name: fmt.Sprintf("c%d", i), CitizenNumber: int64(i + 1), RegisteredAt: tm(i), Version: 1}),
			ev(fmt.Sprintf("t%d", i), TicketFiled{TicketID: fmt.Sprintf("tkt_%08x", i), Category: "bug", Title: "t", Status: "open", CreatedAt: tm(i), Version: 1}))
	}
	for i := range 25 {
		applyAll(t, p, ev(fmt.Sprintf("a%d", i), AnnouncementPosted{PostID: fmt.Sprintf("ann_%08x", i), Title: "t", Content: "c",
			Pinned: false, PostedAt: tm(i), Version: 1}))
	}
	// The newest citizen is tombstoned and the newest ticket resolved: they
	// leave their lists and the next ones move up.
	applyAll(t, p,
		ev("tomb", CitizenTombstoned{AgentID: fmt.Sprintf("emb_%024x", 15), Version: 2}),
		ev("res", TicketStatusChanged{TicketID: "tkt_0000000e", From: "open", To: "resolved", Version: 2}))

	b := p.Bulletin(WorldConfig{}.WithDefaults(at))
	rc := b.Community.RecentCitizens
	if len(rc) != RecentCitizensShown || *rc[0].Name != "c13" || *rc[9].Name != "c4" {
		t.Fatalf("CONTRACT §6 recent_citizens: the 10 newest living, newest first: %v … %v", *rc[0].Name, *rc[len(rc)-1].Name)
	}
	if b.World.Population != 14 {
		t.Fatalf("population = %d", b.World.Population)
	}
	ot := b.Feedback.OpenTicketList
	if len(ot) != OpenTicketsShown || ot[0].TicketID != "tkt_0000000d" || ot[9].TicketID != "tkt_00000004" || b.Feedback.OpenTickets != 14 {
		t.Fatalf("CONTRACT §6 open_ticket_list: the 10 newest open: %v … %v (of %d)", ot[0].TicketID, ot[len(ot)-1].TicketID, b.Feedback.OpenTickets)
	}
	an := b.Announcements
	if len(an) != AnnouncementsShown || an[0].PostID != "ann_00000018" || an[19].PostID != "ann_00000005" {
		t.Fatalf("CONTRACT §6 announcements: the 20 newest: %v … %v", an[0].PostID, an[len(an)-1].PostID)
	}
	if fmt.Sprint(b.Events) != fmt.Sprint(b.Announcements) {
		t.Fatal("SEED §2.2 events has the same content as announcements")
	}
	if b.Pinned != nil || b.PinnedAnnouncement != nil {
		t.Fatal("nothing was pinned")
	}
}

func TestOnePinnedShown(t *testing.T) {
	t.Parallel()
	p := NewProjection()
	applyAll(t, p,
		ev("a1", AnnouncementPosted{PostID: "ann_00000001", Title: "old", Content: "c", Pinned: true, PostedAt: tm(0), Version: 1}),
		// The new pinned post arrives; the unpin of the old one is still on its way.
		ev("a2", AnnouncementPosted{PostID: "ann_00000002", Title: "new", Content: "c", Pinned: true, PostedAt: tm(1), Version: 1}))
	b := p.Bulletin(WorldConfig{}.WithDefaults(at))
	if b.Pinned == nil || b.Pinned.PostID != "ann_00000002" || b.PinnedAnnouncement.PostID != "ann_00000002" {
		t.Fatalf("CONTRACT §6 the last pinned is shown: %+v", b.Pinned)
	}
	pinnedCount := 0
	for _, a := range b.Announcements {
		pinnedCount += a.Pinned
	}
	if pinnedCount != 1 || b.Announcements[0].Pinned != 1 {
		t.Fatalf("CONTRACT §6 one pinned at a time in the list too: %+v", b.Announcements)
	}
	// Re-pinning the older one makes it the pinned one.
	applyAll(t, p,
		ev("a3", AnnouncementPinned{PostID: "ann_00000001", Pinned: false, At: tm(1), Version: 2}),
		ev("a4", AnnouncementPinned{PostID: "ann_00000001", Pinned: true, At: tm(5), Version: 3}),
		ev("a5", AnnouncementPinned{PostID: "ann_00000002", Pinned: false, At: tm(5), Version: 2}))
	b = p.Bulletin(WorldConfig{}.WithDefaults(at))
	if b.Pinned == nil || b.Pinned.PostID != "ann_00000001" || b.Pinned.Pinned != 1 {
		t.Fatalf("pinned after re-pin: %+v", b.Pinned)
	}
	// Unpinning it leaves nothing pinned: null, not an empty object.
	applyAll(t, p, ev("a6", AnnouncementPinned{PostID: "ann_00000001", Pinned: false, At: tm(6), Version: 4}))
	if m := raw(t, p); m["pinned"] != nil || m["pinned_announcement"] != nil {
		t.Fatal("CONTRACT §6 nothing pinned renders null")
	}
}

func TestGovernanceSummary(t *testing.T) {
	t.Parallel()
	p := NewProjection()
	applyAll(t, p,
		ev("p1", ProposalCreated{ProposalID: "prop_00000001", Type: "standard", Title: "Later", ProposedBy: alice, Status: "discussion",
			CreatedAt: tm(0), DiscussionEndsAt: tm(100), VotingEndsAt: tm(200), Version: 1}),
		ev("p2", ProposalCreated{ProposalID: "prop_00000002", Type: "emergency", Title: "Sooner", ProposedBy: bob, Status: "voting",
			CreatedAt: tm(1), DiscussionEndsAt: tm(1), VotingEndsAt: tm(50), Version: 1}),
		ev("p3", ProposalCreated{ProposalID: "prop_00000003", Type: "standard", Title: "Done", ProposedBy: bob, Status: "discussion",
			CreatedAt: tm(2), DiscussionEndsAt: tm(3), VotingEndsAt: tm(4), Version: 1}),
		ev("p4", ProposalStatusChanged{ProposalID: "prop_00000003", From: "voting", To: "passed", Tally: Tally{For: 3}, Version: 3}),
		ev("v1", VoteCast{VoteID: "vote_00000001", ProposalID: "prop_00000002", Tally: Tally{For: 1, Abstain: 1}, Version: 2}),
		ev("x1", ElectionOpened{ElectionID: "elec_00000002", Role: "land", Status: "nominating", OpenedAt: tm(0), Version: 1}),
		ev("x2", ElectionOpened{ElectionID: "elec_00000001", Role: "chief", Status: "nominating", OpenedAt: tm(0), Version: 1}),
		ev("x3", ElectionOpened{ElectionID: "elec_00000003", Role: "peace", Status: "nominating", OpenedAt: tm(0), Version: 1}),
		ev("x4", ElectionStatusChanged{ElectionID: "elec_00000003", Role: "peace", From: "voting", To: "closed", WinnerAgentID: alice, Version: 3}),
		ev("s1", StewardElected{AgentID: alice, Role: "peace", TermStart: tm(10), TermEnd: tm(100), TermNumber: 1}),
		ev("s2", StewardElected{AgentID: bob, Role: "chief", TermStart: tm(10), TermEnd: tm(100), TermNumber: 2}),
	)
	g := p.Bulletin(WorldConfig{}.WithDefaults(at)).Governance
	if len(g.ActiveProposals) != 2 || g.ActiveProposals[0].ProposalID != "prop_00000002" || g.ActiveProposals[1].ProposalID != "prop_00000001" {
		t.Fatalf("CONTRACT §7 active proposals (discussion, voting), soonest deadline first: %+v", g.ActiveProposals)
	}
	if ap := g.ActiveProposals[0]; ap.VotesFor != 1 || ap.VotesAbstain != 1 || ap.Status != "voting" || ap.Type != "emergency" {
		t.Fatalf("proposal summary: %+v", ap)
	}
	if len(g.UpcomingElections) != 2 || g.UpcomingElections[0].Role != "chief" || g.UpcomingElections[1].Role != "land" {
		t.Fatalf("CONTRACT §7 upcoming elections (not closed), in office order: %+v", g.UpcomingElections)
	}
	if len(g.Stewards) != 2 || g.Stewards[0].Role != "chief" || g.Stewards[0].TermNumber != 2 || g.Stewards[1].AgentID != alice {
		t.Fatalf("CONTRACT §7 stewards in office order: %+v", g.Stewards)
	}
	if !strings.Contains(g.ElectionTrigger, "has been triggered") || !strings.Contains(g.ElectionTrigger, "Current population: 0") {
		t.Fatalf("SEED §2.8 trigger text once elections exist: %q", g.ElectionTrigger)
	}
}

func TestRenderFollowsEveryChange(t *testing.T) {
	t.Parallel()
	p := NewProjection()
	cfg := WorldConfig{}.WithDefaults(at)
	steps := []struct {
		name  string
		event Event
		see   func(b Bulletin) bool
	}{
		{"citizen", ev("1", CitizenRegistered{AgentID: alice, Name: "Ada", RegisteredAt: tm(0), Version: 1}),
			func(b Bulletin) bool { return len(b.Community.RecentCitizens) == 1 && b.World.Population == 1 }},
		{"plot", ev("2", PlotClaimed{PlotID: "plot_x1_y1", X: 1, Y: 1, OwnerAgentID: alice, Version: 1}),
			func(b Bulletin) bool {
				return len(b.Plots) == 2 && b.World.PlotsClaimed == 1 && b.Plots[1].DisplayName == nil
			}},
		{"ticket", ev("3", TicketFiled{TicketID: "tkt_00000001", Title: "t", Status: "open", CreatedAt: tm(1), Version: 1}),
			func(b Bulletin) bool { return len(b.Feedback.OpenTicketList) == 1 }},
		{"rename", ev("4", CitizenUpdated{AgentID: alice, Name: "Ada L.", Version: 2}),
			func(b Bulletin) bool { return *b.Community.RecentCitizens[0].Name == "Ada L." }},
		{"garden", ev("5", GardenWritten{Verb: Tended, Path: GardenTendPath, AgentID: alice, GardenFiles: 4, At: tm(2)}),
			func(b Bulletin) bool { return b.Garden.Files == 4 && b.Feed[0].Type == FeedGarden }},
		{"proposal", ev("6", ProposalCreated{ProposalID: "prop_00000001", Title: "p", Status: "discussion", Version: 1}),
			func(b Bulletin) bool { return len(b.Governance.ActiveProposals) == 1 }},
		{"announcement", ev("7", AnnouncementPosted{PostID: "ann_00000001", Title: "t", Content: "c", Pinned: true, PostedAt: tm(3), Version: 1}),
			func(b Bulletin) bool { return b.Pinned != nil && len(b.Announcements) == 1 }},
	}
	for _, s := range steps {
		p.Bulletin(cfg) // render (and cache) before each change
		applyAll(t, p, s.event)
		if !s.see(p.Bulletin(cfg)) {
			t.Fatalf("CONTRACT §6 the bulletin did not show the %s change", s.name)
		}
	}
}

// fillToLimits fills every list of the document to its limit, with names
// and texts of the given characters at their maximum lengths.
func fillToLimits(t *testing.T, nameRune, textRune string) *Projection {
	t.Helper()
	p := NewProjection()
	name := strings.Repeat(nameRune, 100) // CONTRACT §3 name ≤ 100
	title := strings.Repeat(textRune, MaxAnnouncementTitle)
	content := strings.Repeat(textRune, MaxAnnouncementContent)
	n := 0
	next := func() string { n++; return fmt.Sprintf("e%d", n) }
	for x := range 40 {
		for y := range 40 {
			if x == 0 && y == 0 {
				continue
			}
			id := fmt.Sprintf("emb_%024x", x*40+y)
			applyAll(t, p,
				ev(next(), CitizenRegistered{AgentID: id, Name: name, RegisteredAt: tm(x), Version: 1}),
				ev(next(), PlotClaimed{PlotID: fmt.Sprintf("plot_x%d_y%d", x, y), X: x, Y: y, OwnerAgentID: id, DisplayName: name, Version: 1}))
		}
	}
	for i := range 60 {
		applyAll(t, p,
			ev(next(), TicketFiled{TicketID: fmt.Sprintf("tkt_%08x", i), Category: "feature", Title: title, Status: "open", CreatedAt: tm(i), Version: 1}),
			ev(next(), ProposalCreated{ProposalID: fmt.Sprintf("prop_%08x", i), Type: "standard", Title: title, Status: "discussion", Version: 1}))
	}
	// Announcements last, so that all 50 feed entries carry a full body.
	for i := range 60 {
		applyAll(t, p, ev(next(), AnnouncementPosted{PostID: fmt.Sprintf("ann_%08x", i), Title: title, Content: content,
			Pinned: true, PostedAt: tm(1000 + i), Version: 1}))
	}
	b := p.Bulletin(WorldConfig{}.WithDefaults(at))
	if len(b.Feed) != FeedWindow || b.Feed[FeedWindow-1].Body == nil || len(b.Plots) != PlotsShown ||
		len(b.Announcements) != AnnouncementsShown || len(b.Governance.ActiveProposals) != ActiveProposalsShown ||
		len(b.Feedback.OpenTicketList) != OpenTicketsShown || b.Pinned == nil {
		t.Fatal("the document is not filled to its limits; a size check would prove nothing")
	}
	return p
}

func TestEncodeStaysUnderOneMiB(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name           string
		nameRune, text string
		allPlots       bool
	}{
		{"CONTRACT §11 long ASCII names and texts escaped at every character fit with all plots", "n", "\"", true},
		{"CONTRACT §11 four-byte characters everywhere still fit, with plots cut from the end", "🌱", "🌱", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b := fillToLimits(t, c.nameRune, c.text).Bulletin(WorldConfig{}.WithDefaults(at))
			out, err := Encode(b)
			if err != nil {
				t.Fatal(err)
			}
			if len(out) > MaxDocumentBytes {
				t.Fatalf("document is %d bytes, over 1 MiB", len(out))
			}
			var back Bulletin
			if err := json.Unmarshal(out, &back); err != nil {
				t.Fatalf("encoded document is not JSON: %v", err)
			}
			if c.allPlots != (len(back.Plots) == PlotsShown) {
				t.Fatalf("plots shown = %d (all expected: %v)", len(back.Plots), c.allPlots)
			}
			if len(back.Plots) == 0 || back.Plots[0].PlotID != CommonsPlotID {
				t.Fatal("a cut keeps the first plots, the commons first")
			}
			if len(back.Feed) != FeedWindow || len(back.Announcements) != AnnouncementsShown {
				t.Fatal("only plots may be cut")
			}
			t.Logf("%d bytes, %d plots", len(out), len(back.Plots))
		})
	}
}

func TestEncodeDoesNotEscapeHTML(t *testing.T) {
	t.Parallel()
	p := NewProjection()
	applyAll(t, p, ev("t", TicketFiled{TicketID: "tkt_00000001", Title: "a<b & c>d", Status: "open", CreatedAt: tm(0), Version: 1}))
	out, err := Encode(p.Bulletin(WorldConfig{}.WithDefaults(at)))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte(`"title":"a<b & c>d"`)) || bytes.HasSuffix(out, []byte("\n")) {
		t.Fatalf("want the title as written and no trailing newline: %s", out)
	}
}
