package domain

import "time"

// Event is one event of any domain, as the aggregator receives it: the
// CloudEvents id (the key of its feed entry), its type, and the decoded
// payload — one of the event types below, or nil for a type the bulletin
// does not project (message.sent, commons.posted).
type Event struct {
	ID   string
	Type string
	Time time.Time
	Data any
}

// The events of the other services, as far as the bulletin needs them. Each
// event of a versioned aggregate carries the aggregate's version after the
// change; the projections keep the highest version seen.

// CitizenRegistered is citizen.registered.
type CitizenRegistered struct {
	AgentID       string
	Name          string
	CitizenNumber int64
	RegisteredAt  time.Time
	Version       uint64
}

// CitizenUpdated is citizen.updated.
type CitizenUpdated struct {
	AgentID   string
	Name      string
	UpdatedAt time.Time
	Version   uint64
}

// CitizenTombstoned is citizen.tombstoned.
type CitizenTombstoned struct {
	AgentID      string
	TombstonedAt time.Time
	Version      uint64
}

// PlotClaimed is plot.claimed.
type PlotClaimed struct {
	PlotID       string
	X, Y         int
	OwnerAgentID string
	DisplayName  string
	ClaimedAt    time.Time
	Version      uint64
}

// PlotReleased is plot.released.
type PlotReleased struct {
	PlotID       string
	X, Y         int
	OwnerAgentID string
	ReleasedAt   time.Time
	Version      uint64
}

// GardenWritten is garden.planted or garden.tended. The garden has no
// version; its events are keyed by the commons plot, so they arrive in order,
// and the file count of the latest one wins.
type GardenWritten struct {
	Verb        GardenVerb
	PlotID      string
	Path        string
	AgentID     string
	AgentName   string
	GardenFiles int64
	At          time.Time
}

// GardenRemoved is garden.removed: a garden file removed by its planter
// (AgentID) or a curator (Role). Like the writes it carries the garden's
// file count after it; it has no feed line (CONTRACT §6 names the garden
// line's verbs, planted or tended, and no removal).
type GardenRemoved struct {
	PlotID      string
	Path        string
	AgentID     string
	Role        string
	PlantedBy   string
	GardenFiles int64
	At          time.Time
}

// TicketFiled is ticket.filed.
type TicketFiled struct {
	TicketID  string
	Category  string
	Title     string
	Severity  string
	Status    string
	FiledBy   string
	CreatedAt time.Time
	Version   uint64
}

// TicketStatusChanged is ticket.status_changed. It repeats the ticket's
// category, title and creation time so that a projection that missed
// ticket.filed can still show the ticket.
type TicketStatusChanged struct {
	TicketID  string
	From, To  string
	ChangedAt time.Time
	Category  string
	Title     string
	CreatedAt time.Time
	Version   uint64
}

// TicketUpvoted is ticket.upvoted.
type TicketUpvoted struct {
	TicketID string
	Upvotes  int64
	At       time.Time
	Version  uint64
}

// ProposalCreated is proposal.created.
type ProposalCreated struct {
	ProposalID       string
	Type             string
	Title            string
	ProposedBy       string
	Status           string
	CreatedAt        time.Time
	DiscussionEndsAt time.Time
	VotingEndsAt     time.Time
	Version          uint64
}

// ProposalStatusChanged is proposal.status_changed.
type ProposalStatusChanged struct {
	ProposalID    string
	Type          string
	Title         string
	From, To      string
	Tally         Tally
	TotalEligible int64
	ChangedAt     time.Time
	Version       uint64
}

// VoteCast is vote.cast: the counters after the ballot, never the voter or
// the choice.
type VoteCast struct {
	VoteID     string
	ProposalID string
	CastAt     time.Time
	Tally      Tally
	Version    uint64
}

// Tally is a proposal's ballot counters.
type Tally struct {
	For, Against, Abstain int64
}

// ElectionOpened is election.opened.
type ElectionOpened struct {
	ElectionID       string
	Role             string
	Status           string
	OpenedAt         time.Time
	NominationsEndAt time.Time
	VotingEndsAt     time.Time
	Version          uint64
}

// ElectionStatusChanged is election.status_changed.
type ElectionStatusChanged struct {
	ElectionID    string
	Role          string
	From, To      string
	WinnerAgentID string
	ChangedAt     time.Time
	Version       uint64
}

// StewardElected is steward.elected. It has no version: an office's terms
// are ordered by their start.
type StewardElected struct {
	AgentID    string
	Role       string
	TermStart  time.Time
	TermEnd    time.Time
	TermNumber int64
	ElectionID string
}

// StewardTermEnded is steward.term_ended.
type StewardTermEnded struct {
	AgentID string
	Role    string
	EndedAt time.Time
	Reason  string
}
