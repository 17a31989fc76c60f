// Package messages translates between the event catalog (protobuf messages
// in CloudEvents on Kafka, sharedworld.dev/proto) and the bulletin's domain
// events, and reads whole topics back for a rebuild.
package messages

import (
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"sharedworld.dev/pkg/events"
	bulletinv1 "sharedworld.dev/proto/bulletin/v1"
	governancev1 "sharedworld.dev/proto/governance/v1"
	identityv1 "sharedworld.dev/proto/identity/v1"
	plotsv1 "sharedworld.dev/proto/plots/v1"
	ticketsv1 "sharedworld.dev/proto/tickets/v1"
	"sharedworld.dev/services/bulletin/internal/domain"
)

// Source is the CloudEvents source of the bulletin's own events.
const Source = "/services/bulletin"

// ToDomain decodes a consumed event into the domain's terms. Types the
// bulletin does not project (message.sent, commons.posted) come back with a
// nil payload; an undecodable payload is an error.
func ToDomain(e events.Event) (domain.Event, error) {
	msg, err := e.Decode()
	if err != nil {
		return domain.Event{}, err
	}
	return domain.Event{ID: e.ID, Type: e.Type, Time: e.Time, Data: payload(msg)}, nil
}

func ts(t *timestamppb.Timestamp) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.AsTime()
}

func payload(msg proto.Message) any {
	switch m := msg.(type) {
	case *identityv1.CitizenRegistered:
		return domain.CitizenRegistered{AgentID: m.AgentId, Name: m.Name, CitizenNumber: m.CitizenNumber,
			RegisteredAt: ts(m.RegisteredAt), Version: m.Version}
	case *identityv1.CitizenUpdated:
		return domain.CitizenUpdated{AgentID: m.AgentId, Name: m.Name, UpdatedAt: ts(m.UpdatedAt), Version: m.Version}
	case *identityv1.CitizenTombstoned:
		return domain.CitizenTombstoned{AgentID: m.AgentId, TombstonedAt: ts(m.TombstonedAt), Version: m.Version}

	case *plotsv1.PlotClaimed:
		return domain.PlotClaimed{PlotID: m.PlotId, X: int(m.X), Y: int(m.Y), OwnerAgentID: m.OwnerAgentId,
			DisplayName: m.DisplayName, ClaimedAt: ts(m.ClaimedAt), Version: m.Version}
	case *plotsv1.PlotReleased:
		return domain.PlotReleased{PlotID: m.PlotId, X: int(m.X), Y: int(m.Y), OwnerAgentID: m.OwnerAgentId,
			ReleasedAt: ts(m.ReleasedAt), Version: m.Version}
	case *plotsv1.GardenPlanted:
		return domain.GardenWritten{Verb: domain.Planted, PlotID: m.PlotId, Path: m.Path, AgentID: m.AgentId,
			AgentName: m.AgentName, GardenFiles: m.GardenFiles, At: ts(m.At)}
	case *plotsv1.GardenTended:
		return domain.GardenWritten{Verb: domain.Tended, PlotID: m.PlotId, Path: m.Path, AgentID: m.AgentId,
			AgentName: m.AgentName, GardenFiles: m.GardenFiles, At: ts(m.At)}
	case *plotsv1.GardenRemoved:
		return domain.GardenRemoved{PlotID: m.PlotId, Path: m.Path, AgentID: m.AgentId, Role: m.Role,
			PlantedBy: m.PlantedBy, GardenFiles: m.GardenFiles, At: ts(m.At)}

	case *ticketsv1.TicketFiled:
		return domain.TicketFiled{TicketID: m.TicketId, Category: m.Category, Title: m.Title, Severity: m.Severity,
			Status: m.Status, FiledBy: m.FiledBy, CreatedAt: ts(m.CreatedAt), Version: m.Version}
	case *ticketsv1.TicketStatusChanged:
		return domain.TicketStatusChanged{TicketID: m.TicketId, From: m.From, To: m.To, ChangedAt: ts(m.ChangedAt),
			Category: m.Category, Title: m.Title, CreatedAt: ts(m.CreatedAt), Version: m.Version}
	case *ticketsv1.TicketUpvoted:
		return domain.TicketUpvoted{TicketID: m.TicketId, Upvotes: m.Upvotes, At: ts(m.At), Version: m.Version}

	case *governancev1.ProposalCreated:
		return domain.ProposalCreated{ProposalID: m.ProposalId, Type: m.Type, Title: m.Title, ProposedBy: m.ProposedBy,
			Status: m.Status, CreatedAt: ts(m.CreatedAt), DiscussionEndsAt: ts(m.DiscussionEndsAt),
			VotingEndsAt: ts(m.VotingEndsAt), Version: m.Version}
	case *governancev1.ProposalStatusChanged:
		return domain.ProposalStatusChanged{ProposalID: m.ProposalId, Type: m.Type, Title: m.Title, From: m.From, To: m.To,
			Tally:         domain.Tally{For: m.VotesFor, Against: m.VotesAgainst, Abstain: m.VotesAbstain},
			TotalEligible: m.TotalEligible, ChangedAt: ts(m.ChangedAt), Version: m.Version}
	case *governancev1.VoteCast:
		return domain.VoteCast{VoteID: m.VoteId, ProposalID: m.ProposalId, CastAt: ts(m.CastAt),
			Tally: domain.Tally{For: m.VotesFor, Against: m.VotesAgainst, Abstain: m.VotesAbstain}, Version: m.Version}
	case *governancev1.ElectionOpened:
		return domain.ElectionOpened{ElectionID: m.ElectionId, Role: m.Role, Status: m.Status, OpenedAt: ts(m.OpenedAt),
			NominationsEndAt: ts(m.NominationsEndAt), VotingEndsAt: ts(m.VotingEndsAt), Version: m.Version}
	case *governancev1.ElectionStatusChanged:
		return domain.ElectionStatusChanged{ElectionID: m.ElectionId, Role: m.Role, From: m.From, To: m.To,
			WinnerAgentID: m.WinnerAgentId, ChangedAt: ts(m.ChangedAt), Version: m.Version}
	case *governancev1.StewardElected:
		return domain.StewardElected{AgentID: m.AgentId, Role: m.Role, TermStart: ts(m.TermStart), TermEnd: ts(m.TermEnd),
			TermNumber: m.TermNumber, ElectionID: m.ElectionId}
	case *governancev1.StewardTermEnded:
		return domain.StewardTermEnded{AgentID: m.AgentId, Role: m.Role, EndedAt: ts(m.EndedAt), Reason: m.Reason}

	case *bulletinv1.AnnouncementPosted:
		return domain.AnnouncementPosted{PostID: m.PostId, Title: m.Title, Content: m.Content, Pinned: m.Pinned,
			PostedAt: ts(m.PostedAt), Version: m.Version}
	case *bulletinv1.AnnouncementPinned:
		return domain.AnnouncementPinned{PostID: m.PostId, Pinned: m.Pinned, At: ts(m.At), Version: m.Version}
	}
	return nil // message.sent, commons.posted: nothing on the board
}

// FromAnnouncement builds the catalog event of an announcement's event.
func FromAnnouncement(ev domain.AnnouncementEvent) (events.Event, error) {
	switch e := ev.(type) {
	case domain.AnnouncementPosted:
		return events.New(Source, e.PostID, &bulletinv1.AnnouncementPosted{PostId: e.PostID, Title: e.Title,
			Content: e.Content, Pinned: e.Pinned, PostedAt: timestamppb.New(e.PostedAt), Version: e.Version}, e.PostedAt)
	case domain.AnnouncementPinned:
		return events.New(Source, e.PostID, &bulletinv1.AnnouncementPinned{PostId: e.PostID, Pinned: e.Pinned,
			At: timestamppb.New(e.At), Version: e.Version}, e.At)
	}
	return events.Event{}, fmt.Errorf("%T is not an announcement event", ev)
}
