package domain

import (
	"testing"
	"time"

	"sharedworld.dev/pkg/problem"
)

// at is a feed time with a fraction, to show that lines drop it.
var at = time.Date(2026, 11, 22, 9, 15, 3, 127_456_000, time.UTC)

const (
	alice     = "emb_0a1b2c3d4e5f6a7b8c9de1f2"
	aliceAbbr = "0a1b…e1f2"
)

func TestAbbreviateAgentID(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, want string
	}{
		{"CONTRACT §1 first four and last four hex of the 24-hex part", alice, aliceAbbr},
		{"CONTRACT §1 the prefix is the provider's, any prefix works", "xyz_ffffffffffffffffffff0000", "ffff…0000"},
		{"SEED §2.1 the system owner's non-hex id is kept whole", SystemCommonsID, SystemCommonsID},
		{"SEED §2.1 a truncated id is not abbreviated as if it were whole", "emb_0a1b2c3d4e5f", "emb_0a1b2c3d4e5f"},
		{"SEED §2.1 upper-case hex is not the shape", "emb_0A1B2C3D4E5F6A7B8C9DE1F2", "emb_0A1B2C3D4E5F6A7B8C9DE1F2"},
		{"SEED §2.1 a bare 24-hex id still abbreviates", "0a1b2c3d4e5f6a7b8c9de1f2", aliceAbbr},
		{"empty id stays empty", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := AbbreviateAgentID(c.in); got != c.want {
				t.Fatalf("AbbreviateAgentID(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestFeedItemLayouts(t *testing.T) {
	t.Parallel()
	content := "Welcome.\nThe garden is open."
	cases := []struct {
		name     string
		item     FeedItem
		typ      FeedType
		line, id string
		body     *string
	}{
		{"SEED §2.5 ticket: tag, at, ticket_id, title", TicketFeedItem("tkt_0badcafe", "Docs unclear", at),
			FeedTicket, "#ticket  2026-11-22T09:15:03Z  tkt_0badcafe  Docs unclear", "tkt_0badcafe", nil},
		{"SEED §2.5 claim: plot_id and abbreviated owner", ClaimFeedItem("plot_x3_y4", alice, at),
			FeedClaim, "#claim  2026-11-22T09:15:03Z  plot_x3_y4  " + aliceAbbr, "plot_x3_y4", nil},
		{"SEED §2.1 the layout keeps a non-hex owner whole (the commons makes no item: TestCitizenClaimsOnly)", ClaimFeedItem(CommonsPlotID, SystemCommonsID, at),
			FeedClaim, "#claim  2026-11-22T09:15:03Z  plot_0_0  system_commons", "plot_0_0", nil},
		{"SEED §6 announcement: line is tag and at, body the full text, id post_id", AnnouncementFeedItem("ann_12345678", content, at),
			FeedAnnouncement, "#announcement  2026-11-22T09:15:03Z", "ann_12345678", &content},
		{"CONTRACT §6 garden planted by a named citizen: name, verb, last path segment", GardenFeedItem("/garden/ada/poem.md", "Ada", alice, Planted, at),
			FeedGarden, "#garden  2026-11-22T09:15:03Z  Ada  planted  poem.md", "/garden/ada/poem.md", nil},
		{"CONTRACT §6 garden tended by a citizen without a name: abbreviated id", GardenFeedItem("/garden/index.md", "", alice, Tended, at),
			FeedGarden, "#garden  2026-11-22T09:15:03Z  " + aliceAbbr + "  tended  index.md", "/garden/index.md", nil},
		{"SEED §2.5 vote: proposal id then cast, id vote_id", VoteFeedItem("vote_00ff00ff", "prop_abcdef01", at),
			FeedVote, "#vote  2026-11-22T09:15:03Z  prop_abcdef01  cast", "vote_00ff00ff", nil},
		{"CONTRACT §6 registration has its own type", CitizenFeedItem(alice, "Ada", at),
			FeedCitizen, "#citizen  2026-11-22T09:15:03Z  Ada  registered", alice, nil},
		{"CONTRACT §6 proposal created", ProposalFeedItem("prop_abcdef01", "proposed", "Plant trees", at),
			FeedProposal, "#proposal  2026-11-22T09:15:03Z  prop_abcdef01  proposed  Plant trees", "prop_abcdef01", nil},
		{"CONTRACT §6 election opened", ElectionFeedItem("elec_01234567", "chief", ElectionNominating, "", at),
			FeedElection, "#election  2026-11-22T09:15:03Z  elec_01234567  chief  nominating", "elec_01234567", nil},
		{"CONTRACT §7 election closed with a winner", ElectionFeedItem("elec_01234567", "land", ElectionClosed, alice, at),
			FeedElection, "#election  2026-11-22T09:15:03Z  elec_01234567  land  closed  " + aliceAbbr, "elec_01234567", nil},
		{"CONTRACT §7 election closed without a winner leaves the office vacant", ElectionFeedItem("elec_01234567", "peace", ElectionClosed, "", at),
			FeedElection, "#election  2026-11-22T09:15:03Z  elec_01234567  peace  closed  vacant", "elec_01234567", nil},
		{"SEED §2.5 a line stays one line: breaks in a title become spaces", TicketFeedItem("tkt_0badcafe", "two\nlines\r\n", at),
			FeedTicket, "#ticket  2026-11-22T09:15:03Z  tkt_0badcafe  two lines", "tkt_0badcafe", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			v := c.item.View()
			if v.Type != c.typ || v.Tag != "#"+string(c.typ) {
				t.Fatalf("type/tag = %q/%q, want %q/#%s", v.Type, v.Tag, c.typ, c.typ)
			}
			if v.At != "2026-11-22T09:15:03Z" {
				t.Fatalf("at = %q, want no fraction", v.At)
			}
			if v.Line != c.line {
				t.Fatalf("line = %q\n       want %q", v.Line, c.line)
			}
			if v.ID != c.id {
				t.Fatalf("id = %q, want %q", v.ID, c.id)
			}
			switch {
			case c.body == nil && v.Body != nil:
				t.Fatalf("body = %q, want null", *v.Body)
			case c.body != nil && (v.Body == nil || *v.Body != *c.body):
				t.Fatalf("body = %v, want %q", v.Body, *c.body)
			}
		})
	}
}

func TestFeedItemKeepsMilliseconds(t *testing.T) {
	t.Parallel()
	// CONTRACT §1: stored as BSON dates (milliseconds); memory must sort like the store.
	f := TicketFeedItem("tkt_0badcafe", "x", at)
	if want := time.Date(2026, 11, 22, 9, 15, 3, 127_000_000, time.UTC); !f.At.Equal(want) {
		t.Fatalf("At = %v, want %v", f.At, want)
	}
}

func TestParseFeedType(t *testing.T) {
	t.Parallel()
	for _, ft := range FeedTypes {
		got, err := ParseFeedType(string(ft))
		if err != nil || got != ft {
			t.Fatalf("CONTRACT §6 type filter %q: got %q, %v", ft, got, err)
		}
	}
	for _, bad := range []string{"Ticket", "tickets", "#ticket", "message"} {
		_, err := ParseFeedType(bad)
		if !problem.IsKind(err, problem.KindInvalid) {
			t.Fatalf("CONTRACT §11 unknown type %q: want invalid_request, got %v", bad, err)
		}
		if pe, _ := problem.As(err); pe.Hint == "" {
			t.Fatalf("unknown type %q: error has no hint", bad)
		}
	}
}

func TestFeedEntryOrder(t *testing.T) {
	t.Parallel()
	older := FeedEntry{EventID: "b", Item: TicketFeedItem("tkt_1", "x", at)}
	newer := FeedEntry{EventID: "a", Item: TicketFeedItem("tkt_2", "x", at.Add(time.Millisecond))}
	sameMsHigherID := FeedEntry{EventID: "c", Item: TicketFeedItem("tkt_3", "x", at)}
	if !newer.NewerThan(older) || older.NewerThan(newer) {
		t.Fatal("SEED §2.2 feed is newest at first")
	}
	if !sameMsHigherID.NewerThan(older) || older.NewerThan(sameMsHigherID) {
		t.Fatal("entries of one millisecond must be ordered by event id, independent of apply order")
	}
}

func TestCitizenClaimsOnly(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		claim PlotClaimed
		want  bool
	}{
		{"SEED §2.5 a citizen's claim is listed", PlotClaimed{PlotID: "plot_x3_y4", OwnerAgentID: alice}, true},
		{"SEED §2.5 the commons is made by the world, not claimed", PlotClaimed{PlotID: CommonsPlotID, OwnerAgentID: SystemCommonsID}, false},
		{"SEED §2.1 the system owner is no citizen, whatever plot", PlotClaimed{PlotID: "plot_x1_y1", OwnerAgentID: SystemCommonsID}, false},
		{"SEED §2.5 the commons plot is never a citizen's claim", PlotClaimed{PlotID: CommonsPlotID, OwnerAgentID: alice}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := IsCitizenClaim(c.claim); got != c.want {
				t.Fatalf("IsCitizenClaim(%+v) = %v, want %v", c.claim, got, c.want)
			}
		})
	}
}
