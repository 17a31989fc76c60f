// Package catalog is the event catalog of Shared World: the Kafka topics, the
// CloudEvents types (the ce_type header) and the protobuf message carried
// as the value for each type. The messages themselves are generated into
// the per-domain packages sharedworld.dev/proto/<domain>/v1.
//
// Every event of a domain goes to that domain's topic, keyed by the
// aggregate id so that one aggregate's events stay ordered.
package catalog

import (
	"google.golang.org/protobuf/reflect/protoreflect"

	bulletinv1 "sharedworld.dev/proto/bulletin/v1"
	governancev1 "sharedworld.dev/proto/governance/v1"
	identityv1 "sharedworld.dev/proto/identity/v1"
	messagingv1 "sharedworld.dev/proto/messaging/v1"
	plotsv1 "sharedworld.dev/proto/plots/v1"
	ticketsv1 "sharedworld.dev/proto/tickets/v1"
)

// Topics, one per domain.
const (
	TopicIdentity   = "world.identity"
	TopicPlots      = "world.plots"
	TopicTickets    = "world.tickets"
	TopicGovernance = "world.governance"
	TopicMessaging  = "world.messaging"
	TopicBulletin   = "world.bulletin"
)

// CloudEvents types (the ce_type header).
const (
	// identity
	TypeCitizenRegistered = "citizen.registered"
	TypeCitizenUpdated    = "citizen.updated"
	TypeCitizenTombstoned = "citizen.tombstoned"

	// plots
	TypePlotClaimed   = "plot.claimed"
	TypePlotReleased  = "plot.released"
	TypeGardenPlanted = "garden.planted"
	TypeGardenTended  = "garden.tended"
	TypeGardenRemoved = "garden.removed"

	// tickets
	TypeTicketFiled         = "ticket.filed"
	TypeTicketStatusChanged = "ticket.status_changed"
	TypeTicketUpvoted       = "ticket.upvoted"

	// governance
	TypeProposalCreated       = "proposal.created"
	TypeProposalStatusChanged = "proposal.status_changed"
	TypeVoteCast              = "vote.cast"
	TypeElectionOpened        = "election.opened"
	TypeElectionStatusChanged = "election.status_changed"
	TypeStewardElected        = "steward.elected"
	TypeStewardTermEnded      = "steward.term_ended"

	// messaging
	TypeMessageSent   = "message.sent"
	TypeCommonsPosted = "commons.posted"
	TypeInboxReceived = "inbox.received"
	TypeInboxReplied  = "inbox.replied"

	// bulletin
	TypeAnnouncementPosted = "announcement.posted"
	TypeAnnouncementPinned = "announcement.pinned"
)

type entry struct {
	eventType string
	topic     string
	msg       protoreflect.MessageType
}

func mt(m protoreflect.ProtoMessage) protoreflect.MessageType {
	return m.ProtoReflect().Type()
}

// catalog lists every event type in a fixed order (by domain, then as
// declared above); AllTypes and AllTopics follow this order.
var catalog = []entry{
	{TypeCitizenRegistered, TopicIdentity, mt((*identityv1.CitizenRegistered)(nil))},
	{TypeCitizenUpdated, TopicIdentity, mt((*identityv1.CitizenUpdated)(nil))},
	{TypeCitizenTombstoned, TopicIdentity, mt((*identityv1.CitizenTombstoned)(nil))},

	{TypePlotClaimed, TopicPlots, mt((*plotsv1.PlotClaimed)(nil))},
	{TypePlotReleased, TopicPlots, mt((*plotsv1.PlotReleased)(nil))},
	{TypeGardenPlanted, TopicPlots, mt((*plotsv1.GardenPlanted)(nil))},
	{TypeGardenTended, TopicPlots, mt((*plotsv1.GardenTended)(nil))},
	{TypeGardenRemoved, TopicPlots, mt((*plotsv1.GardenRemoved)(nil))},

	{TypeTicketFiled, TopicTickets, mt((*ticketsv1.TicketFiled)(nil))},
	{TypeTicketStatusChanged, TopicTickets, mt((*ticketsv1.TicketStatusChanged)(nil))},
	{TypeTicketUpvoted, TopicTickets, mt((*ticketsv1.TicketUpvoted)(nil))},

	{TypeProposalCreated, TopicGovernance, mt((*governancev1.ProposalCreated)(nil))},
	{TypeProposalStatusChanged, TopicGovernance, mt((*governancev1.ProposalStatusChanged)(nil))},
	{TypeVoteCast, TopicGovernance, mt((*governancev1.VoteCast)(nil))},
	{TypeElectionOpened, TopicGovernance, mt((*governancev1.ElectionOpened)(nil))},
	{TypeElectionStatusChanged, TopicGovernance, mt((*governancev1.ElectionStatusChanged)(nil))},
	{TypeStewardElected, TopicGovernance, mt((*governancev1.StewardElected)(nil))},
	{TypeStewardTermEnded, TopicGovernance, mt((*governancev1.StewardTermEnded)(nil))},

	{TypeMessageSent, TopicMessaging, mt((*messagingv1.MessageSent)(nil))},
	{TypeCommonsPosted, TopicMessaging, mt((*messagingv1.CommonsPosted)(nil))},
	{TypeInboxReceived, TopicMessaging, mt((*messagingv1.InboxReceived)(nil))},
	{TypeInboxReplied, TopicMessaging, mt((*messagingv1.InboxReplied)(nil))},

	{TypeAnnouncementPosted, TopicBulletin, mt((*bulletinv1.AnnouncementPosted)(nil))},
	{TypeAnnouncementPinned, TopicBulletin, mt((*bulletinv1.AnnouncementPinned)(nil))},
}

var (
	byType   = make(map[string]*entry, len(catalog))
	byName   = make(map[protoreflect.FullName]string, len(catalog))
	allTypes = make([]string, 0, len(catalog))
	topics   []string
)

func init() {
	seenTopic := map[string]bool{}
	for i := range catalog {
		e := &catalog[i]
		name := e.msg.Descriptor().FullName()
		if _, dup := byType[e.eventType]; dup {
			panic("proto: duplicate event type " + e.eventType)
		}
		if _, dup := byName[name]; dup {
			panic("proto: message " + string(name) + " used by two event types")
		}
		byType[e.eventType] = e
		byName[name] = e.eventType
		allTypes = append(allTypes, e.eventType)
		if !seenTopic[e.topic] {
			seenTopic[e.topic] = true
			topics = append(topics, e.topic)
		}
	}
}

// TopicOf returns the Kafka topic that events of eventType are published
// on, and false for an unknown type.
func TopicOf(eventType string) (string, bool) {
	e, ok := byType[eventType]
	if !ok {
		return "", false
	}
	return e.topic, true
}

// New returns a fresh, empty message for eventType (for example a
// *identityv1.CitizenRegistered for "citizen.registered"), ready to be
// unmarshalled into, and false for an unknown type.
func New(eventType string) (protoreflect.ProtoMessage, bool) {
	e, ok := byType[eventType]
	if !ok {
		return nil, false
	}
	return e.msg.New().Interface(), true
}

// TypeOf returns the CloudEvents type of a message, looked up by the
// message's full protobuf name, and false for nil or a message that is not
// an event of the catalog.
func TypeOf(m protoreflect.ProtoMessage) (string, bool) {
	if m == nil {
		return "", false
	}
	t, ok := byName[m.ProtoReflect().Descriptor().FullName()]
	return t, ok
}

// AllTopics returns every topic, one per domain, in a fixed order. The
// slice is a fresh copy.
func AllTopics() []string {
	return append([]string(nil), topics...)
}

// AllTypes returns every event type in a fixed order (grouped by domain).
// The slice is a fresh copy.
func AllTypes() []string {
	return append([]string(nil), allTypes...)
}
