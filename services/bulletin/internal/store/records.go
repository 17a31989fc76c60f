package store

import (
	"time"

	"sharedworld.dev/services/bulletin/internal/domain"
)

// The stored shape of each projection record. Every document carries `rev`,
// the record's revision, which guards its writes.

type citizenDoc struct {
	ID            string    `bson:"_id"`
	Rev           uint64    `bson:"rev"`
	CitizenNumber int64     `bson:"citizen_number"`
	RegisteredAt  time.Time `bson:"registered_at"`
	Name          string    `bson:"name"`
	NameVersion   uint64    `bson:"name_version"`
	Living        bool      `bson:"living"`
	LivingVersion uint64    `bson:"living_version"`
}

type plotDoc struct {
	ID           string    `bson:"_id"`
	Rev          uint64    `bson:"rev"`
	X            int       `bson:"x"`
	Y            int       `bson:"y"`
	OwnerAgentID string    `bson:"owner_agent_id"`
	DisplayName  string    `bson:"display_name"`
	ClaimedAt    time.Time `bson:"claimed_at"`
	Claimed      bool      `bson:"claimed"`
	Version      uint64    `bson:"version"`
}

type ticketDoc struct {
	ID             string    `bson:"_id"`
	Rev            uint64    `bson:"rev"`
	Category       string    `bson:"category"`
	Title          string    `bson:"title"`
	Severity       string    `bson:"severity"`
	FiledBy        string    `bson:"filed_by"`
	CreatedAt      time.Time `bson:"created_at"`
	Status         string    `bson:"status"`
	StatusVersion  uint64    `bson:"status_version"`
	Upvotes        int64     `bson:"upvotes"`
	UpvotesVersion uint64    `bson:"upvotes_version"`
}

type proposalDoc struct {
	ID               string    `bson:"_id"`
	Rev              uint64    `bson:"rev"`
	Type             string    `bson:"type"`
	Title            string    `bson:"title"`
	ProposedBy       string    `bson:"proposed_by"`
	CreatedAt        time.Time `bson:"created_at"`
	DiscussionEndsAt time.Time `bson:"discussion_ends_at"`
	VotingEndsAt     time.Time `bson:"voting_ends_at"`
	Status           string    `bson:"status"`
	StatusVersion    uint64    `bson:"status_version"`
	TotalEligible    int64     `bson:"total_eligible"`
	VotesFor         int64     `bson:"votes_for"`
	VotesAgainst     int64     `bson:"votes_against"`
	VotesAbstain     int64     `bson:"votes_abstain"`
	TallyVersion     uint64    `bson:"tally_version"`
}

type electionDoc struct {
	ID               string    `bson:"_id"`
	Rev              uint64    `bson:"rev"`
	Role             string    `bson:"role"`
	OpenedAt         time.Time `bson:"opened_at"`
	NominationsEndAt time.Time `bson:"nominations_end_at"`
	VotingEndsAt     time.Time `bson:"voting_ends_at"`
	Status           string    `bson:"status"`
	WinnerAgentID    string    `bson:"winner_agent_id"`
	Version          uint64    `bson:"version"`
}

type stewardDoc struct {
	ID         string    `bson:"_id"` // the office
	Rev        uint64    `bson:"rev"`
	AgentID    string    `bson:"agent_id"`
	TermStart  time.Time `bson:"term_start"`
	TermEnd    time.Time `bson:"term_end"`
	TermNumber int64     `bson:"term_number"`
	Active     bool      `bson:"active"`
	EndedAt    time.Time `bson:"ended_at"`
}

type announcementDoc struct {
	ID         string    `bson:"_id"`
	Rev        uint64    `bson:"rev"`
	Title      string    `bson:"title"`
	Content    string    `bson:"content"`
	PostedAt   time.Time `bson:"posted_at"`
	Pinned     bool      `bson:"pinned"`
	PinnedAt   time.Time `bson:"pinned_at"`
	PinVersion uint64    `bson:"pin_version"`
}

type gardenDoc struct {
	ID    string    `bson:"_id"`
	Rev   uint64    `bson:"rev"`
	Files int64     `bson:"files"`
	At    time.Time `bson:"at"`
}

// toDoc maps a record to its document.
func toDoc(r domain.Record) any {
	switch r := r.(type) {
	case domain.Citizen:
		return citizenDoc{ID: r.AgentID, Rev: r.Revision(), CitizenNumber: r.CitizenNumber, RegisteredAt: r.RegisteredAt,
			Name: r.Name, NameVersion: r.NameVersion, Living: r.Living, LivingVersion: r.LivingVersion}
	case domain.Plot:
		return plotDoc{ID: r.PlotID, Rev: r.Revision(), X: r.X, Y: r.Y, OwnerAgentID: r.OwnerAgentID, DisplayName: r.DisplayName,
			ClaimedAt: r.ClaimedAt, Claimed: r.Claimed, Version: r.Version}
	case domain.Ticket:
		return ticketDoc{ID: r.TicketID, Rev: r.Revision(), Category: r.Category, Title: r.Title, Severity: r.Severity,
			FiledBy: r.FiledBy, CreatedAt: r.CreatedAt, Status: r.Status, StatusVersion: r.StatusVersion,
			Upvotes: r.Upvotes, UpvotesVersion: r.UpvotesVersion}
	case domain.Proposal:
		return proposalDoc{ID: r.ProposalID, Rev: r.Revision(), Type: r.Type, Title: r.Title, ProposedBy: r.ProposedBy,
			CreatedAt: r.CreatedAt, DiscussionEndsAt: r.DiscussionEndsAt, VotingEndsAt: r.VotingEndsAt,
			Status: r.Status, StatusVersion: r.StatusVersion, TotalEligible: r.TotalEligible,
			VotesFor: r.Tally.For, VotesAgainst: r.Tally.Against, VotesAbstain: r.Tally.Abstain, TallyVersion: r.TallyVersion}
	case domain.Election:
		return electionDoc{ID: r.ElectionID, Rev: r.Revision(), Role: r.Role, OpenedAt: r.OpenedAt,
			NominationsEndAt: r.NominationsEndAt, VotingEndsAt: r.VotingEndsAt, Status: r.Status,
			WinnerAgentID: r.WinnerAgentID, Version: r.Version}
	case domain.Steward:
		return stewardDoc{ID: r.Role, Rev: r.Revision(), AgentID: r.AgentID, TermStart: r.TermStart, TermEnd: r.TermEnd,
			TermNumber: r.TermNumber, Active: r.Active, EndedAt: r.EndedAt}
	case domain.PostedAnnouncement:
		return announcementDoc{ID: r.PostID, Rev: r.Revision(), Title: r.Title, Content: r.Content, PostedAt: r.PostedAt,
			Pinned: r.Pinned, PinnedAt: r.PinnedAt, PinVersion: r.PinVersion}
	case domain.Garden:
		return gardenDoc{ID: r.Key(), Rev: r.Revision(), Files: r.Files, At: r.At}
	}
	return nil
}

// Times come back from the driver in UTC at millisecond precision, as the
// domain keeps them; zero times were stored as the zero date and come back
// as the zero time.
func utc(t time.Time) time.Time {
	if t.IsZero() || t.Year() <= 1 {
		return time.Time{}
	}
	return t.UTC()
}

func (d citizenDoc) record() domain.Record {
	return domain.Citizen{AgentID: d.ID, CitizenNumber: d.CitizenNumber, RegisteredAt: utc(d.RegisteredAt), Name: d.Name,
		NameVersion: d.NameVersion, Living: d.Living, LivingVersion: d.LivingVersion}
}

func (d plotDoc) record() domain.Record {
	return domain.Plot{PlotID: d.ID, X: d.X, Y: d.Y, OwnerAgentID: d.OwnerAgentID, DisplayName: d.DisplayName,
		ClaimedAt: utc(d.ClaimedAt), Claimed: d.Claimed, Version: d.Version}
}

func (d ticketDoc) record() domain.Record {
	return domain.Ticket{TicketID: d.ID, Category: d.Category, Title: d.Title, Severity: d.Severity, FiledBy: d.FiledBy,
		CreatedAt: utc(d.CreatedAt), Status: d.Status, StatusVersion: d.StatusVersion, Upvotes: d.Upvotes, UpvotesVersion: d.UpvotesVersion}
}

func (d proposalDoc) record() domain.Record {
	return domain.Proposal{ProposalID: d.ID, Type: d.Type, Title: d.Title, ProposedBy: d.ProposedBy, CreatedAt: utc(d.CreatedAt),
		DiscussionEndsAt: utc(d.DiscussionEndsAt), VotingEndsAt: utc(d.VotingEndsAt), Status: d.Status, StatusVersion: d.StatusVersion,
		TotalEligible: d.TotalEligible, Tally: domain.Tally{For: d.VotesFor, Against: d.VotesAgainst, Abstain: d.VotesAbstain},
		TallyVersion: d.TallyVersion}
}

func (d electionDoc) record() domain.Record {
	return domain.Election{ElectionID: d.ID, Role: d.Role, OpenedAt: utc(d.OpenedAt), NominationsEndAt: utc(d.NominationsEndAt),
		VotingEndsAt: utc(d.VotingEndsAt), Status: d.Status, WinnerAgentID: d.WinnerAgentID, Version: d.Version}
}

func (d stewardDoc) record() domain.Record {
	return domain.Steward{Role: d.ID, AgentID: d.AgentID, TermStart: utc(d.TermStart), TermEnd: utc(d.TermEnd),
		TermNumber: d.TermNumber, Active: d.Active, EndedAt: utc(d.EndedAt)}
}

func (d announcementDoc) record() domain.Record {
	return domain.PostedAnnouncement{PostID: d.ID, Title: d.Title, Content: d.Content, PostedAt: utc(d.PostedAt),
		Pinned: d.Pinned, PinnedAt: utc(d.PinnedAt), PinVersion: d.PinVersion}
}

func (d gardenDoc) record() domain.Record {
	return domain.Garden{Files: d.Files, At: utc(d.At)}
}
