package bulletin_test

import (
	"net/http"
	"reflect"
	"testing"
	"time"

	"sharedworld.dev/pkg/events"
	bulletinv1 "sharedworld.dev/proto/bulletin/v1"
	governancev1 "sharedworld.dev/proto/governance/v1"
	identityv1 "sharedworld.dev/proto/identity/v1"
	messagingv1 "sharedworld.dev/proto/messaging/v1"
	plotsv1 "sharedworld.dev/proto/plots/v1"
	ticketsv1 "sharedworld.dev/proto/tickets/v1"
	"sharedworld.dev/services/bulletin"
)

var (
	ada   = agent("a1ce")
	bob   = agent("b0b0")
	carol = agent("ca01")
	// base has a fraction so that the feed's `at` visibly drops it.
	base = time.Date(2026, 11, 22, 9, 0, 0, 250_000_000, time.UTC)
)

func sec(n int) time.Time { return base.Add(time.Duration(n) * time.Second) }

// everyEventType is one event of every type of the catalog, as the other
// services (and the bulletin's own relay) publish them.
func everyEventType() []events.Event {
	return []events.Event{
		ev(ada, &identityv1.CitizenRegistered{AgentId: ada, Name: "Ada", CitizenNumber: 1, RegisteredAt: pb(sec(1)), Version: 1}, sec(1)),
		ev(bob, &identityv1.CitizenRegistered{AgentId: bob, CitizenNumber: 2, RegisteredAt: pb(sec(2)), Version: 1}, sec(2)),
		ev(bob, &identityv1.CitizenUpdated{AgentId: bob, Name: "Bob", UpdatedAt: pb(sec(3)), Version: 2}, sec(3)),
		ev(carol, &identityv1.CitizenRegistered{AgentId: carol, Name: "Carol", CitizenNumber: 3, RegisteredAt: pb(sec(4)), Version: 1}, sec(4)),
		ev(carol, &identityv1.CitizenTombstoned{AgentId: carol, TombstonedAt: pb(sec(5)), Version: 2}, sec(5)),

		ev("plot_x3_y4", &plotsv1.PlotClaimed{PlotId: "plot_x3_y4", X: 3, Y: 4, OwnerAgentId: ada, DisplayName: "Ada's Acre", ClaimedAt: pb(sec(6)), Version: 1}, sec(6)),
		ev("plot_x1_y9", &plotsv1.PlotClaimed{PlotId: "plot_x1_y9", X: 1, Y: 9, OwnerAgentId: bob, ClaimedAt: pb(sec(7)), Version: 1}, sec(7)),
		ev("plot_x1_y9", &plotsv1.PlotReleased{PlotId: "plot_x1_y9", X: 1, Y: 9, OwnerAgentId: bob, ReleasedAt: pb(sec(8)), Version: 2}, sec(8)),
		ev("plot_0_0", &plotsv1.GardenPlanted{PlotId: "plot_0_0", Path: "/garden/ada/poem.md", AgentId: ada, AgentName: "Ada", GardenFiles: 1, At: pb(sec(9))}, sec(9)),
		ev("plot_0_0", &plotsv1.GardenTended{PlotId: "plot_0_0", Path: "/garden/index.md", AgentId: bob, GardenFiles: 2, At: pb(sec(10))}, sec(10)),

		ev("tkt_0000000a", &ticketsv1.TicketFiled{TicketId: "tkt_0000000a", Category: "bug", Title: "Broken map", Severity: "high", Status: "open", FiledBy: ada, CreatedAt: pb(sec(11)), Version: 1}, sec(11)),
		ev("tkt_0000000b", &ticketsv1.TicketFiled{TicketId: "tkt_0000000b", Category: "docs", Title: "Typo in docs", Severity: "low", Status: "open", FiledBy: bob, CreatedAt: pb(sec(12)), Version: 1}, sec(12)),
		ev("tkt_0000000a", &ticketsv1.TicketStatusChanged{TicketId: "tkt_0000000a", From: "open", To: "resolved", ChangedAt: pb(sec(13)), Category: "bug", Title: "Broken map", CreatedAt: pb(sec(11)), Version: 2}, sec(13)),
		ev("tkt_0000000b", &ticketsv1.TicketUpvoted{TicketId: "tkt_0000000b", AgentId: ada, Upvotes: 1, At: pb(sec(14)), Version: 2}, sec(14)),

		ev("prop_0000000c", &governancev1.ProposalCreated{ProposalId: "prop_0000000c", Type: "standard", Title: "Plant trees", ProposedBy: ada, Status: "discussion",
			CreatedAt: pb(sec(15)), DiscussionEndsAt: pb(sec(15).Add(72 * time.Hour)), VotingEndsAt: pb(sec(15).Add(120 * time.Hour)), Version: 1}, sec(15)),
		ev("prop_0000000c", &governancev1.ProposalStatusChanged{ProposalId: "prop_0000000c", Type: "standard", Title: "Plant trees", From: "discussion", To: "voting",
			TotalEligible: 2, ChangedAt: pb(sec(16)), Version: 2}, sec(16)),
		ev("prop_0000000c", &governancev1.VoteCast{VoteId: "vote_0000000d", ProposalId: "prop_0000000c", CastAt: pb(sec(17)), VotesFor: 1, Version: 3}, sec(17)),
		ev("elec_0000000e", &governancev1.ElectionOpened{ElectionId: "elec_0000000e", Role: "chief", Status: "nominating", OpenedAt: pb(sec(18)),
			NominationsEndAt: pb(sec(18).Add(48 * time.Hour)), VotingEndsAt: pb(sec(18).Add(120 * time.Hour)), Version: 1}, sec(18)),
		ev("elec_0000000e", &governancev1.ElectionStatusChanged{ElectionId: "elec_0000000e", Role: "chief", From: "nominating", To: "voting", ChangedAt: pb(sec(19)), Version: 2}, sec(19)),
		ev(ada, &governancev1.StewardElected{AgentId: ada, Role: "land", TermStart: pb(sec(20)), TermEnd: pb(sec(20).Add(720 * time.Hour)), TermNumber: 1, ElectionId: "elec_00000011"}, sec(20)),
		ev(bob, &governancev1.StewardElected{AgentId: bob, Role: "peace", TermStart: pb(sec(20)), TermEnd: pb(sec(20).Add(720 * time.Hour)), TermNumber: 1, ElectionId: "elec_00000012"}, sec(20)),
		ev(bob, &governancev1.StewardTermEnded{AgentId: bob, Role: "peace", EndedAt: pb(sec(21)), Reason: "recalled"}, sec(21)),

		ev("msg_00000013", &messagingv1.MessageSent{MessageId: "msg_00000013", FromAgentId: ada, ToAgentId: bob, SentAt: pb(sec(22))}, sec(22)),
		ev("post_00000014", &messagingv1.CommonsPosted{PostId: "post_00000014", Channel: "general", AgentId: bob, Title: "Hi", PostedAt: pb(sec(23))}, sec(23)),

		ev("ann_0000000f", &bulletinv1.AnnouncementPosted{PostId: "ann_0000000f", Title: "Welcome", Content: "Hello,\ncitizens.", Pinned: true, PostedAt: pb(sec(24)), Version: 1}, sec(24)),
		ev("ann_00000010", &bulletinv1.AnnouncementPosted{PostId: "ann_00000010", Title: "Elections", Content: "Soon.", Pinned: false, PostedAt: pb(sec(25)), Version: 1}, sec(25)),
		ev("ann_0000000f", &bulletinv1.AnnouncementPinned{PostId: "ann_0000000f", Pinned: false, At: pb(sec(26)), Version: 2}, sec(26)),
		ev("ann_00000010", &bulletinv1.AnnouncementPinned{PostId: "ann_00000010", Pinned: true, At: pb(sec(26)), Version: 2}, sec(26)),
	}
}

// TestEveryEventTypeShapesTheBulletin publishes one event of every type to
// Kafka and checks the bulletin field by field and the feed line by line
// (SEED §2.2–2.10, §2.5; CONTRACT §6).
func TestEveryEventTypeShapesTheBulletin(t *testing.T) {
	w := newWorld(t, bulletin.Options{})
	evs := everyEventType()
	w.kit.Publish(evs...)
	w.waitHandled(t, int64(len(evs)))
	doc := w.waitRendered(t, "every event rendered", everyEventRendered)
	assertEveryEventDocument(t, doc)
}

func assertEveryEventDocument(t *testing.T, doc map[string]any) {
	t.Helper()
	world := doc["world"].(map[string]any)
	if world["population"] != 2.0 || world["plots_claimed"] != 1.0 || world["phase"] != "Founding" ||
		world["name"] != "Shared World" || world["logic_flag"] != "BUILDING" {
		t.Errorf("SEED §2.3 world: %s", jsonOf(t, world))
	}

	wantFeed := []string{
		"#announcement  2026-11-22T09:00:25Z",
		"#announcement  2026-11-22T09:00:24Z",
		"#election  2026-11-22T09:00:19Z  elec_0000000e  chief  voting",
		"#election  2026-11-22T09:00:18Z  elec_0000000e  chief  nominating",
		"#vote  2026-11-22T09:00:17Z  prop_0000000c  cast",
		"#proposal  2026-11-22T09:00:16Z  prop_0000000c  voting  Plant trees",
		"#proposal  2026-11-22T09:00:15Z  prop_0000000c  proposed  Plant trees",
		"#ticket  2026-11-22T09:00:12Z  tkt_0000000b  Typo in docs",
		"#ticket  2026-11-22T09:00:11Z  tkt_0000000a  Broken map",
		"#garden  2026-11-22T09:00:10Z  " + abbr(bob) + "  tended  index.md",
		"#garden  2026-11-22T09:00:09Z  Ada  planted  poem.md",
		"#claim  2026-11-22T09:00:07Z  plot_x1_y9  " + abbr(bob),
		"#claim  2026-11-22T09:00:06Z  plot_x3_y4  " + abbr(ada),
		"#citizen  2026-11-22T09:00:04Z  Carol  registered",
		"#citizen  2026-11-22T09:00:02Z  " + abbr(bob) + "  registered",
		"#citizen  2026-11-22T09:00:01Z  Ada  registered",
	}
	if got := feedLines(doc); !reflect.DeepEqual(got, wantFeed) {
		t.Errorf("SEED §2.5 feed lines:\n got %q\nwant %q", got, wantFeed)
	}
	feed := doc["feed"].([]any)
	first := feed[0].(map[string]any)
	if first["type"] != "announcement" || first["tag"] != "#announcement" || first["at"] != "2026-11-22T09:00:25Z" ||
		first["body"] != "Soon." || first["id"] != "ann_00000010" {
		t.Errorf("SEED §6 announcement feed item: %s", jsonOf(t, first))
	}
	garden := feed[9].(map[string]any)
	if garden["id"] != "/garden/index.md" || garden["body"] != nil {
		t.Errorf("CONTRACT §6 garden feed item id is the whole path, body null: %s", jsonOf(t, garden))
	}
	if vote := feed[4].(map[string]any); vote["id"] != "vote_0000000d" {
		t.Errorf("SEED §2.5 vote item id is the vote_id: %s", jsonOf(t, vote))
	}

	wantPinned := `{"content":"Soon.","pinned":1,"post_id":"ann_00000010","posted_at":"2026-11-22T09:00:25.250Z","title":"Elections"}`
	if got := jsonOf(t, doc["pinned"]); got != wantPinned || jsonOf(t, doc["pinned_announcement"]) != wantPinned {
		t.Errorf("CONTRACT §6 pinned: %s", got)
	}
	wantAnns := `[` + wantPinned + `,{"content":"Hello,\ncitizens.","pinned":0,"post_id":"ann_0000000f","posted_at":"2026-11-22T09:00:24.250Z","title":"Welcome"}]`
	if got := jsonOf(t, doc["announcements"]); got != wantAnns || jsonOf(t, doc["events"]) != wantAnns {
		t.Errorf("SEED §2.2 announcements/events:\n got %s\nwant %s", got, wantAnns)
	}

	wantPlots := `[{"display_name":"The Commons","owner_agent_id":"system_commons","plot_id":"plot_0_0","x":0,"y":0},` +
		`{"display_name":"Ada's Acre","owner_agent_id":"` + ada + `","plot_id":"plot_x3_y4","x":3,"y":4}]`
	if got := jsonOf(t, doc["plots"]); got != wantPlots {
		t.Errorf("SEED §2.7 plots:\n got %s\nwant %s", got, wantPlots)
	}
	if files := doc["garden"].(map[string]any)["files"]; files != 2.0 {
		t.Errorf("SEED §2.6 garden files = %v", files)
	}

	gov := doc["governance"].(map[string]any)
	wantProposals := `[{"created_at":"2026-11-22T09:00:15.250Z","discussion_ends_at":"2026-11-25T09:00:15.250Z","proposal_id":"prop_0000000c",` +
		`"proposed_by":"` + ada + `","status":"voting","title":"Plant trees","total_eligible":2,"type":"standard",` +
		`"votes_abstain":0,"votes_against":0,"votes_for":1,"voting_ends_at":"2026-11-27T09:00:15.250Z"}]`
	if got := jsonOf(t, gov["active_proposals"]); got != wantProposals {
		t.Errorf("SEED §2.8 active_proposals:\n got %s\nwant %s", got, wantProposals)
	}
	wantStewards := `[{"agent_id":"` + ada + `","role":"land","term_end":"2026-12-22T09:00:20.250Z","term_number":1,"term_start":"2026-11-22T09:00:20.250Z"}]`
	if got := jsonOf(t, gov["stewards"]); got != wantStewards {
		t.Errorf("SEED §2.8 stewards (a recalled term is gone):\n got %s\nwant %s", got, wantStewards)
	}
	wantElections := `[{"election_id":"elec_0000000e","nominations_end_at":"2026-11-24T09:00:18.250Z","opened_at":"2026-11-22T09:00:18.250Z",` +
		`"role":"chief","status":"voting","voting_ends_at":"2026-11-27T09:00:18.250Z"}]`
	if got := jsonOf(t, gov["upcoming_elections"]); got != wantElections {
		t.Errorf("SEED §2.8 upcoming_elections:\n got %s\nwant %s", got, wantElections)
	}
	if got := gov["election_trigger"]; got != "The first election occurs at population 10; it has been triggered. Current population: 2." {
		t.Errorf("SEED §2.8 election_trigger: %q", got)
	}

	wantCitizens := `[{"agent_id":"` + bob + `","name":"Bob","registered_at":"2026-11-22T09:00:02.250Z"},` +
		`{"agent_id":"` + ada + `","name":"Ada","registered_at":"2026-11-22T09:00:01.250Z"}]`
	community := doc["community"].(map[string]any)
	if got := jsonOf(t, community["recent_citizens"]); got != wantCitizens {
		t.Errorf("SEED §2.9 recent_citizens (tombstoned left out):\n got %s\nwant %s", got, wantCitizens)
	}
	if got := jsonOf(t, community["commons_channels"]); got != `["announcements","introductions","proposals","help","general"]` {
		t.Errorf("SEED §2.9 commons_channels: %s", got)
	}

	wantFeedback := `{"open_ticket_list":[{"category":"docs","created_at":"2026-11-22T09:00:12.250Z","status":"open","ticket_id":"tkt_0000000b","title":"Typo in docs"}],` +
		`"open_tickets":1,"submit_ticket":"/api/world/tickets","view_tickets":"/api/world/tickets?status=open"}`
	if got := jsonOf(t, doc["feedback"]); got != wantFeedback {
		t.Errorf("SEED §2.10 feedback:\n got %s\nwant %s", got, wantFeedback)
	}
	wantLinks := `{"agent_txt":"/agent.txt","bulletin":"/api/world/bulletin","commons":"/api/world/commons","directory":"/api/world/directory",` +
		`"docs":"/docs","events":"/api/world/events","founding":"/founding","garden_write":"/api/world/storage/write","inbox":"/api/world/inbox",` +
		`"notifications":"/api/world/notifications","register":"/api/world/register","safety":"/safety","tickets":"/api/world/tickets"}`
	if got := jsonOf(t, doc["links"]); got != wantLinks {
		t.Errorf("SEED §2.10 links:\n got %s\nwant %s", got, wantLinks)
	}
}

// TestRedeliveryChangesNothing delivers every event a second time (same
// CloudEvents ids, as a relay republishing after a crash does): the served
// document stays byte for byte the same (CONTRACT §6, ARCHITECTURE: no
// double effects).
func TestRedeliveryChangesNothing(t *testing.T) {
	w := newWorld(t, bulletin.Options{})
	evs := everyEventType()
	w.kit.Publish(evs...)
	w.waitHandled(t, int64(len(evs)))
	once := w.waitRendered(t, "all events rendered", everyEventRendered)
	etag := w.do(t, http.MethodGet, "/api/world/bulletin", nil, nil).Header["Etag"]

	w.kit.Publish(evs...)
	w.waitHandled(t, int64(2*len(evs)))
	r := w.do(t, http.MethodGet, "/api/world/bulletin", nil, nil)
	if r.Header["Etag"] != etag || jsonOf(t, r.Body) != jsonOf(t, once) {
		t.Fatalf("redelivery changed the bulletin:\nbefore %s\nafter  %s", jsonOf(t, once), r.Raw)
	}
	page := w.do(t, http.MethodGet, "/api/world/events?limit=100", nil, nil)
	if n := len(page.Body["events"].([]any)); n != 16 {
		t.Fatalf("the stored feed holds %d entries after redelivery, want 16", n)
	}
}

// TestOutOfOrderEventsPerAggregate publishes each aggregate's events newest
// first: a status is never overwritten by an older event (CONTRACT §6).
func TestOutOfOrderEventsPerAggregate(t *testing.T) {
	w := newWorld(t, bulletin.Options{})
	evs := []events.Event{
		ev(carol, &identityv1.CitizenTombstoned{AgentId: carol, TombstonedAt: pb(sec(5)), Version: 2}, sec(5)),
		ev(carol, &identityv1.CitizenRegistered{AgentId: carol, Name: "Carol", CitizenNumber: 3, RegisteredAt: pb(sec(4)), Version: 1}, sec(4)),
		ev(bob, &identityv1.CitizenUpdated{AgentId: bob, Name: "Robert", UpdatedAt: pb(sec(3)), Version: 2}, sec(3)),
		ev(bob, &identityv1.CitizenRegistered{AgentId: bob, Name: "Bob", CitizenNumber: 2, RegisteredAt: pb(sec(2)), Version: 1}, sec(2)),
		ev("tkt_0000000a", &ticketsv1.TicketStatusChanged{TicketId: "tkt_0000000a", From: "open", To: "acknowledged", Category: "bug", Title: "Broken map", CreatedAt: pb(sec(11)), Version: 2}, sec(13)),
		ev("tkt_0000000a", &ticketsv1.TicketFiled{TicketId: "tkt_0000000a", Category: "bug", Title: "Broken map", Severity: "high", Status: "open", FiledBy: ada, CreatedAt: pb(sec(11)), Version: 1}, sec(11)),
		ev("plot_x1_y9", &plotsv1.PlotReleased{PlotId: "plot_x1_y9", X: 1, Y: 9, OwnerAgentId: bob, ReleasedAt: pb(sec(8)), Version: 2}, sec(8)),
		ev("plot_x1_y9", &plotsv1.PlotClaimed{PlotId: "plot_x1_y9", X: 1, Y: 9, OwnerAgentId: bob, ClaimedAt: pb(sec(7)), Version: 1}, sec(7)),
		ev("prop_0000000c", &governancev1.VoteCast{VoteId: "vote_00000002", ProposalId: "prop_0000000c", CastAt: pb(sec(18)), VotesFor: 2, Version: 4}, sec(18)),
		ev("prop_0000000c", &governancev1.VoteCast{VoteId: "vote_00000001", ProposalId: "prop_0000000c", CastAt: pb(sec(17)), VotesFor: 1, Version: 3}, sec(17)),
		ev("prop_0000000c", &governancev1.ProposalStatusChanged{ProposalId: "prop_0000000c", Type: "standard", Title: "Plant trees", From: "discussion", To: "voting", TotalEligible: 2, Version: 2}, sec(16)),
		ev("prop_0000000c", &governancev1.ProposalCreated{ProposalId: "prop_0000000c", Type: "standard", Title: "Plant trees", ProposedBy: ada, Status: "discussion", CreatedAt: pb(sec(15)), Version: 1}, sec(15)),
		ev("ann_0000000f", &bulletinv1.AnnouncementPinned{PostId: "ann_0000000f", Pinned: false, At: pb(sec(26)), Version: 2}, sec(26)),
		ev("ann_0000000f", &bulletinv1.AnnouncementPosted{PostId: "ann_0000000f", Title: "Welcome", Content: "Hi", Pinned: true, PostedAt: pb(sec(24)), Version: 1}, sec(24)),
	}
	w.kit.Publish(evs...)
	w.waitHandled(t, int64(len(evs)))
	doc := w.waitRendered(t, "all applied", func(d map[string]any) bool { return len(d["feed"].([]any)) == 9 })

	if got := doc["world"].(map[string]any)["population"]; got != 1.0 {
		t.Errorf("a late registration revived a tombstoned citizen: population %v", got)
	}
	rc := doc["community"].(map[string]any)["recent_citizens"].([]any)
	if len(rc) != 1 || rc[0].(map[string]any)["name"] != "Robert" {
		t.Errorf("a late registration undid a rename: %s", jsonOf(t, rc))
	}
	if fb := doc["feedback"].(map[string]any); fb["open_tickets"] != 0.0 {
		t.Errorf("a late filing reopened an acknowledged ticket: %s", jsonOf(t, fb))
	}
	if got := doc["world"].(map[string]any)["plots_claimed"]; got != 0.0 {
		t.Errorf("a late claim undid a release: plots_claimed %v", got)
	}
	ap := doc["governance"].(map[string]any)["active_proposals"].([]any)
	if len(ap) != 1 || ap[0].(map[string]any)["status"] != "voting" || ap[0].(map[string]any)["votes_for"] != 2.0 {
		t.Errorf("older proposal events overwrote newer ones: %s", jsonOf(t, ap))
	}
	if doc["pinned"] != nil {
		t.Errorf("a late post re-pinned an unpinned announcement: %s", jsonOf(t, doc["pinned"]))
	}
	if a := doc["announcements"].([]any); len(a) != 1 || a[0].(map[string]any)["pinned"] != 0.0 {
		t.Errorf("announcements: %s", jsonOf(t, a))
	}
}

// everyEventRendered reports whether a bulletin shows the effect of every
// event of everyEventType. Topics are consumed independently, so a rendering
// with all sixteen feed lines can still lack an event that adds no line
// (Carol's tombstone, a release, a pin).
func everyEventRendered(d map[string]any) bool {
	world := d["world"].(map[string]any)
	pinned, _ := d["pinned"].(map[string]any)
	gov := d["governance"].(map[string]any)
	props := gov["active_proposals"].([]any)
	return len(d["feed"].([]any)) == 16 &&
		pinned != nil && pinned["post_id"] == "ann_00000010" &&
		world["population"] == float64(2) && world["plots_claimed"] == float64(1) &&
		d["garden"].(map[string]any)["files"] == float64(2) &&
		d["feedback"].(map[string]any)["open_tickets"] == float64(1) &&
		len(gov["stewards"].([]any)) == 1 &&
		len(props) == 1 && props[0].(map[string]any)["votes_for"] == float64(1)
}
