// Package messages turns the governance domain's events into the catalog's
// protobuf messages (proto/governance/v1) wrapped as CloudEvents for the
// outbox, on world.governance. No message carries a ballot's choice or
// the voter of a ballot.
package messages

import (
	"fmt"

	"google.golang.org/protobuf/types/known/timestamppb"

	eventkit "sharedworld.dev/pkg/events"
	governancev1 "sharedworld.dev/proto/governance/v1"
	"sharedworld.dev/services/governance/internal/domain"
)

// Source is the CloudEvents source of every governance event.
const Source = "/services/governance"

// Encode wraps a domain event for the outbox.
func Encode(e domain.Event) (eventkit.Event, error) {
	ts := timestamppb.New
	switch ev := e.(type) {
	case domain.ProposalCreated:
		p := ev.Proposal
		return eventkit.New(Source, p.ID, &governancev1.ProposalCreated{
			ProposalId: p.ID, Type: string(p.Type), Title: p.Title, ProposedBy: p.ProposedBy, Status: string(p.Status),
			CreatedAt: ts(p.CreatedAt), DiscussionEndsAt: ts(p.DiscussionEndsAt), VotingEndsAt: ts(p.VotingEndsAt), Version: p.Version,
		}, p.CreatedAt)
	case domain.ProposalStatusChanged:
		p := ev.Proposal
		return eventkit.New(Source, p.ID, &governancev1.ProposalStatusChanged{
			ProposalId: p.ID, Type: string(p.Type), Title: p.Title, From: string(ev.From), To: string(p.Status),
			VotesFor: p.Tally.For, VotesAgainst: p.Tally.Against, VotesAbstain: p.Tally.Abstain, TotalEligible: p.TotalEligible,
			ChangedAt: ts(ev.At), Version: p.Version,
		}, ev.At)
	case domain.VoteCast:
		return eventkit.New(Source, ev.ProposalID, &governancev1.VoteCast{
			VoteId: ev.VoteID, ProposalId: ev.ProposalID, CastAt: ts(ev.CastAt),
			VotesFor: ev.Tally.For, VotesAgainst: ev.Tally.Against, VotesAbstain: ev.Tally.Abstain, Version: ev.Version,
		}, ev.CastAt)
	case domain.ElectionOpened:
		el := ev.Election
		return eventkit.New(Source, el.ID, &governancev1.ElectionOpened{
			ElectionId: el.ID, Role: string(el.Role), Status: string(el.Status), OpenedAt: ts(el.OpenedAt),
			NominationsEndAt: ts(el.NominationsEndAt), VotingEndsAt: ts(el.VotingEndsAt), Version: el.Version,
		}, el.OpenedAt)
	case domain.ElectionStatusChanged:
		el := ev.Election
		return eventkit.New(Source, el.ID, &governancev1.ElectionStatusChanged{
			ElectionId: el.ID, Role: string(el.Role), From: string(ev.From), To: string(el.Status),
			WinnerAgentId: el.Winner, ChangedAt: ts(ev.At), Version: el.Version,
		}, ev.At)
	case domain.StewardElected:
		t := ev.Term
		return eventkit.New(Source, t.AgentID, &governancev1.StewardElected{
			AgentId: t.AgentID, Role: string(ev.Role), TermStart: ts(t.Start), TermEnd: ts(t.End),
			TermNumber: int64(t.Number), ElectionId: t.ElectionID,
		}, t.Start)
	case domain.StewardTermEnded:
		return eventkit.New(Source, ev.AgentID, &governancev1.StewardTermEnded{
			AgentId: ev.AgentID, Role: string(ev.Role), EndedAt: ts(ev.EndedAt), Reason: ev.Reason,
		}, ev.EndedAt)
	}
	return eventkit.Event{}, fmt.Errorf("governance: no event mapping for %T", e)
}
