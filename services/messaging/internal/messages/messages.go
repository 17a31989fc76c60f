// Package messages maps the messaging domain to the catalog's events.
// Messaging publishes message.sent, commons.posted, inbox.received and
// inbox.replied on world.messaging (never a subject, a content, an inbox
// text or a key). It consumes world.identity (citizens), world.bulletin
// (announcements become broadcast notifications), world.governance
// (stewards; election openings and decided proposals become broadcasts) and
// its own world.messaging (a delivered message or a reply becomes the
// citizen's notification).
package messages

import (
	"fmt"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	eventkit "sharedworld.dev/pkg/events"
	bulletinv1 "sharedworld.dev/proto/bulletin/v1"
	governancev1 "sharedworld.dev/proto/governance/v1"
	messagingv1 "sharedworld.dev/proto/messaging/v1"
	"sharedworld.dev/services/messaging/internal/domain"
)

// Source is the CloudEvents source of every messaging event.
const Source = "/services/messaging"

// Encode wraps a domain event for the outbox.
func Encode(e any) (eventkit.Event, error) {
	switch ev := e.(type) {
	case domain.Sent:
		return eventkit.New(Source, ev.MessageID, &messagingv1.MessageSent{
			MessageId: ev.MessageID, FromAgentId: ev.From, ToAgentId: ev.To, SentAt: timestamppb.New(ev.SentAt),
		}, ev.SentAt)
	case domain.CommonsPosted:
		p := ev.Post
		return eventkit.New(Source, p.ID, &messagingv1.CommonsPosted{
			PostId: p.ID, Channel: p.Channel, AgentId: p.AgentID, Title: p.Title, PostedAt: timestamppb.New(p.PostedAt),
		}, p.PostedAt)
	case domain.InboxReceived:
		return eventkit.New(Source, ev.ID, &messagingv1.InboxReceived{
			InboxId: ev.ID, FromAgentId: ev.From, Type: string(ev.Type), ReceivedAt: timestamppb.New(ev.At),
		}, ev.At)
	case domain.InboxReplied:
		return eventkit.New(Source, ev.ID, &messagingv1.InboxReplied{
			InboxId: ev.ID, ToAgentId: ev.To, RepliedAt: timestamppb.New(ev.At),
		}, ev.At)
	}
	return eventkit.Event{}, fmt.Errorf("messaging: no event mapping for %T", e)
}

// Effect is what a consumed event asks of messaging: at most one of a
// broadcast, a personal notification or a steward change.
type Effect struct {
	Broadcast *domain.Broadcast
	Personal  *domain.Personal
	Steward   *StewardChange
}

// StewardChange is a steward elected (Ended false) or whose term ended.
type StewardChange struct {
	Role, AgentID, ElectionID string
	TermEnd                   time.Time
	Ended                     bool
}

// Translate decodes a consumed event into its effect; an event messaging
// does not act on has none.
func Translate(msg any) Effect {
	switch m := msg.(type) {
	case *bulletinv1.AnnouncementPosted:
		return Effect{Broadcast: &domain.Broadcast{Key: "announcement:" + m.GetPostId(), Kind: domain.KindAnnouncement,
			Title: m.GetTitle(), PostID: m.GetPostId(), CreatedAt: m.GetPostedAt().AsTime()}}
	case *governancev1.ElectionOpened:
		return Effect{Broadcast: &domain.Broadcast{Key: "election_opened:" + m.GetElectionId(), Kind: domain.KindElectionOpened,
			Title: "An election for the " + m.GetRole() + " office has opened.", RefID: m.GetElectionId(), CreatedAt: m.GetOpenedAt().AsTime()}}
	case *governancev1.ProposalStatusChanged:
		if m.GetTo() != "passed" && m.GetTo() != "failed" {
			return Effect{}
		}
		return Effect{Broadcast: &domain.Broadcast{Key: "proposal_decided:" + m.GetProposalId(), Kind: domain.KindProposalDecided,
			Title: "Proposal " + m.GetTitle() + " " + m.GetTo() + ".", RefID: m.GetProposalId(), CreatedAt: m.GetChangedAt().AsTime()}}
	case *governancev1.StewardElected:
		return Effect{Steward: &StewardChange{Role: m.GetRole(), AgentID: m.GetAgentId(), ElectionID: m.GetElectionId(), TermEnd: m.GetTermEnd().AsTime()}}
	case *governancev1.StewardTermEnded:
		return Effect{Steward: &StewardChange{Role: m.GetRole(), AgentID: m.GetAgentId(), Ended: true}}
	case *messagingv1.MessageSent:
		return Effect{Personal: &domain.Personal{Key: "message:" + m.GetMessageId(), AgentID: m.GetToAgentId(), Kind: domain.KindMessage,
			Title: "You have a new message.", RefID: m.GetMessageId(), CreatedAt: m.GetSentAt().AsTime()}}
	case *messagingv1.InboxReplied:
		return Effect{Personal: &domain.Personal{Key: "inbox_reply:" + m.GetInboxId(), AgentID: m.GetToAgentId(), Kind: domain.KindInboxReply,
			Title: "The ambassador replied to your inbox message.", RefID: m.GetInboxId(), CreatedAt: m.GetRepliedAt().AsTime()}}
	}
	return Effect{}
}
