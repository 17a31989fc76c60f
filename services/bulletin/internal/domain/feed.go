package domain

import (
	"path"
	"strings"
	"time"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/problem"
)

// FeedType is the closed set of feed item types. The first five are the
// seed's (SEED §2.5); CONTRACT §6 lets registrations, proposals and
// elections appear with their own type too.
type FeedType string

// Feed item types.
const (
	FeedTicket       FeedType = "ticket"
	FeedClaim        FeedType = "claim"
	FeedAnnouncement FeedType = "announcement"
	FeedGarden       FeedType = "garden"
	FeedVote         FeedType = "vote"
	FeedCitizen      FeedType = "citizen"
	FeedProposal     FeedType = "proposal"
	FeedElection     FeedType = "election"
)

// FeedTypes lists every feed type, seed types first.
var FeedTypes = []FeedType{
	FeedTicket, FeedClaim, FeedAnnouncement, FeedGarden, FeedVote,
	FeedCitizen, FeedProposal, FeedElection,
}

// ParseFeedType reads the `type` filter of GET /api/world/events; an
// unknown value is invalid_request, not an empty page, so a typo is noticed.
func ParseFeedType(raw string) (FeedType, error) {
	for _, t := range FeedTypes {
		if string(t) == raw {
			return t, nil
		}
	}
	return "", problem.Invalidf(
		"Use one of: ticket, claim, announcement, garden, vote, citizen, proposal, election.",
		"Unknown feed type %q.", raw)
}

// Tag is the feed tag of the type: "#" plus the type (SEED §2.5).
func (t FeedType) Tag() string { return "#" + string(t) }

// feedSeparator joins the fields of a feed line (SEED §2.5).
const feedSeparator = "  "

// GardenVerb says whether a garden write created a file or rewrote one.
type GardenVerb string

// Garden verbs (SEED §2.5).
const (
	Planted GardenVerb = "planted"
	Tended  GardenVerb = "tended"
)

// FeedItem is one entry of the feed (SEED §2.5). At is kept to the
// millisecond — the precision it is stored with — so that the order in
// memory and the order in the database agree; the line shows it without
// fraction.
type FeedItem struct {
	Type FeedType
	At   time.Time
	Line string
	// Body is the full announcement text for an announcement, nil otherwise.
	Body *string
	// ID is what the item is about: a ticket_id, plot_id, post_id, garden
	// path, vote_id, agent_id, proposal_id or election_id.
	ID string
}

// Tag is "#" plus the type.
func (f FeedItem) Tag() string { return f.Type.Tag() }

// AtText is `at` as the feed shows it: UTC, no fraction.
func (f FeedItem) AtText() string { return clock.FeedTimestamp(f.At) }

// newFeedItem lays out the line: tag, at, then the fields, each joined by two
// spaces. Free text is folded onto one line so that a line stays a line.
func newFeedItem(t FeedType, at time.Time, id string, fields ...string) FeedItem {
	at = clock.Stored(at)
	parts := make([]string, 0, 2+len(fields))
	parts = append(parts, t.Tag(), clock.FeedTimestamp(at))
	for _, f := range fields {
		parts = append(parts, oneLine(f))
	}
	return FeedItem{Type: t, At: at, Line: strings.Join(parts, feedSeparator), ID: id}
}

// oneLine replaces line breaks and tabs with spaces and trims the ends.
func oneLine(s string) string {
	if strings.ContainsAny(s, "\r\n\t") {
		s = strings.Map(func(r rune) rune {
			switch r {
			case '\r', '\n', '\t':
				return ' '
			}
			return r
		}, s)
	}
	return strings.TrimSpace(s)
}

// actorName is a citizen's name when it has one, else the abbreviated
// agent_id (CONTRACT §6).
func actorName(name, agentID string) string {
	if n := oneLine(name); n != "" {
		return n
	}
	return AbbreviateAgentID(agentID)
}

// TicketFeedItem: `#ticket  <at>  <ticket_id>  <title>`, id ticket_id.
func TicketFeedItem(ticketID, title string, at time.Time) FeedItem {
	return newFeedItem(FeedTicket, at, ticketID, ticketID, title)
}

// ClaimFeedItem: `#claim  <at>  <plot_id>  <abbreviated agent_id>`, id plot_id.
func ClaimFeedItem(plotID, ownerAgentID string, at time.Time) FeedItem {
	return newFeedItem(FeedClaim, at, plotID, plotID, AbbreviateAgentID(ownerAgentID))
}

// AnnouncementFeedItem: `#announcement  <at>`, body the full content, id post_id.
func AnnouncementFeedItem(postID, content string, at time.Time) FeedItem {
	f := newFeedItem(FeedAnnouncement, at, postID)
	f.Body = &content
	return f
}

// GardenFeedItem: `#garden  <at>  <name or abbreviated agent_id>  <verb>  <file name>`,
// where the file name is the last segment of the path and id the whole path.
func GardenFeedItem(gardenPath, agentName, agentID string, verb GardenVerb, at time.Time) FeedItem {
	return newFeedItem(FeedGarden, at, gardenPath, actorName(agentName, agentID), string(verb), path.Base(gardenPath))
}

// VoteFeedItem: `#vote  <at>  <proposal_id>  cast`, id vote_id. A ballot is
// secret, so the line names neither the voter nor the choice.
func VoteFeedItem(voteID, proposalID string, at time.Time) FeedItem {
	return newFeedItem(FeedVote, at, voteID, proposalID, "cast")
}

// CitizenFeedItem: `#citizen  <at>  <name or abbreviated agent_id>  registered`, id agent_id.
func CitizenFeedItem(agentID, name string, at time.Time) FeedItem {
	return newFeedItem(FeedCitizen, at, agentID, actorName(name, agentID), "registered")
}

// ProposalFeedItem: `#proposal  <at>  <proposal_id>  <what happened>  <title>`,
// id proposal_id. What happened is "proposed" for a new proposal, else the
// status it moved to (voting, passed, failed).
func ProposalFeedItem(proposalID, happened, title string, at time.Time) FeedItem {
	return newFeedItem(FeedProposal, at, proposalID, proposalID, happened, title)
}

// ElectionFeedItem: `#election  <at>  <election_id>  <role>  <status>`, id
// election_id; a closed election adds the abbreviated winner, or "vacant"
// when nobody won.
func ElectionFeedItem(electionID, role, status, winnerAgentID string, at time.Time) FeedItem {
	if status != ElectionClosed {
		return newFeedItem(FeedElection, at, electionID, electionID, role, status)
	}
	outcome := "vacant"
	if winnerAgentID != "" {
		outcome = AbbreviateAgentID(winnerAgentID)
	}
	return newFeedItem(FeedElection, at, electionID, electionID, role, status, outcome)
}

// FeedEntry is a feed item as the aggregator keeps it: keyed by the id of the
// event that produced it, so that the same event delivered twice yields one
// entry.
type FeedEntry struct {
	EventID string
	Item    FeedItem
}

// NewerThan orders entries newest `at` first; entries of the same
// millisecond are ordered by event id so the order never depends on the
// order in which events happened to be applied (a rebuild gives the same
// feed).
func (e FeedEntry) NewerThan(o FeedEntry) bool {
	if !e.Item.At.Equal(o.Item.At) {
		return e.Item.At.After(o.Item.At)
	}
	return e.EventID > o.EventID
}
