package domain

import "time"

// Change is what one event does to the projections: at most one record (the
// aggregate's new state) and at most one feed entry. Planning changes
// nothing; the aggregator commits the change to memory and writes it to the
// store.
type Change struct {
	EventID string
	Record  Record     // nil when no projection changed
	Feed    *FeedEntry // nil when the event has no feed line, or it is already there
}

// Empty reports whether the event changes nothing (a duplicate, a stale
// event, or one the bulletin does not project).
func (c Change) Empty() bool { return c.Record == nil && c.Feed == nil }

// Plan works out what ev changes, without changing anything. An event that
// can never apply returns an error wrapping ErrInvalidEvent.
func (p *Projection) Plan(ev Event) (Change, error) {
	if ev.ID == "" {
		return Change{}, invalidEvent(ev.Type, "no event id")
	}
	rec, item, err := p.plan(ev)
	if err != nil {
		return Change{}, err
	}
	ch := Change{EventID: ev.ID, Record: rec}
	if item != nil {
		if _, dup := p.feedIDs[ev.ID]; !dup {
			ch.Feed = &FeedEntry{EventID: ev.ID, Item: *item}
		}
	}
	return ch, nil
}

// plan dispatches on the payload; each case finds the aggregate's record,
// applies the event to a copy and returns the copy only if it changed. The
// feed item does not depend on the version: a stale status change changes no
// record, but a vote cast is still a vote cast.
func (p *Projection) plan(ev Event) (Record, *FeedItem, error) {
	pick := func(r Record, changed bool) Record {
		if changed {
			return r
		}
		return nil
	}
	switch e := ev.Data.(type) {
	case CitizenRegistered:
		if err := requireAggregate(ev.Type, e.AgentID, e.Version); err != nil {
			return nil, nil, err
		}
		item := CitizenFeedItem(e.AgentID, e.Name, orEventTime(e.RegisteredAt, ev))
		return pick(p.citizen(e.AgentID).ApplyRegistered(e)), &item, nil
	case CitizenUpdated:
		if err := requireAggregate(ev.Type, e.AgentID, e.Version); err != nil {
			return nil, nil, err
		}
		return pick(p.citizen(e.AgentID).ApplyUpdated(e)), nil, nil
	case CitizenTombstoned:
		if err := requireAggregate(ev.Type, e.AgentID, e.Version); err != nil {
			return nil, nil, err
		}
		return pick(p.citizen(e.AgentID).ApplyTombstoned(e)), nil, nil

	case PlotClaimed:
		if err := requireAggregate(ev.Type, e.PlotID, e.Version); err != nil {
			return nil, nil, err
		}
		rec := pick(p.plot(e.PlotID).ApplyClaimed(e))
		if !IsCitizenClaim(e) {
			return rec, nil, nil // the commons is made by the world, not claimed
		}
		item := ClaimFeedItem(e.PlotID, e.OwnerAgentID, orEventTime(e.ClaimedAt, ev))
		return rec, &item, nil
	case PlotReleased:
		if err := requireAggregate(ev.Type, e.PlotID, e.Version); err != nil {
			return nil, nil, err
		}
		return pick(p.plot(e.PlotID).ApplyReleased(e)), nil, nil
	case GardenWritten:
		if e.Path == "" {
			return nil, nil, invalidEvent(ev.Type, "no garden path")
		}
		if e.Verb != Planted && e.Verb != Tended {
			return nil, nil, invalidEvent(ev.Type, "garden verb %q", e.Verb)
		}
		item := GardenFeedItem(e.Path, e.AgentName, e.AgentID, e.Verb, orEventTime(e.At, ev))
		if e.At.IsZero() {
			e.At = ev.Time
		}
		return pick(p.garden.ApplyWritten(e)), &item, nil
	case GardenRemoved:
		if e.Path == "" {
			return nil, nil, invalidEvent(ev.Type, "no garden path")
		}
		if e.At.IsZero() {
			e.At = ev.Time
		}
		return pick(p.garden.ApplyRemoved(e)), nil, nil // no feed line: CONTRACT §6 has none for it

	case TicketFiled:
		if err := requireAggregate(ev.Type, e.TicketID, e.Version); err != nil {
			return nil, nil, err
		}
		item := TicketFeedItem(e.TicketID, e.Title, orEventTime(e.CreatedAt, ev))
		return pick(p.ticket(e.TicketID).ApplyFiled(e)), &item, nil
	case TicketStatusChanged:
		if err := requireAggregate(ev.Type, e.TicketID, e.Version); err != nil {
			return nil, nil, err
		}
		return pick(p.ticket(e.TicketID).ApplyStatusChanged(e)), nil, nil
	case TicketUpvoted:
		if err := requireAggregate(ev.Type, e.TicketID, e.Version); err != nil {
			return nil, nil, err
		}
		return pick(p.ticket(e.TicketID).ApplyUpvoted(e)), nil, nil

	case ProposalCreated:
		if err := requireAggregate(ev.Type, e.ProposalID, e.Version); err != nil {
			return nil, nil, err
		}
		item := ProposalFeedItem(e.ProposalID, "proposed", e.Title, orEventTime(e.CreatedAt, ev))
		return pick(p.proposal(e.ProposalID).ApplyCreated(e)), &item, nil
	case ProposalStatusChanged:
		if err := requireAggregate(ev.Type, e.ProposalID, e.Version); err != nil {
			return nil, nil, err
		}
		next, changed := p.proposal(e.ProposalID).ApplyStatusChanged(e)
		title := e.Title
		if title == "" {
			title = next.Title
		}
		item := ProposalFeedItem(e.ProposalID, e.To, title, orEventTime(e.ChangedAt, ev))
		return pick(next, changed), &item, nil
	case VoteCast:
		if err := requireAggregate(ev.Type, e.ProposalID, e.Version); err != nil {
			return nil, nil, err
		}
		if e.VoteID == "" {
			return nil, nil, invalidEvent(ev.Type, "no vote id")
		}
		item := VoteFeedItem(e.VoteID, e.ProposalID, orEventTime(e.CastAt, ev))
		return pick(p.proposal(e.ProposalID).ApplyVoteCast(e)), &item, nil

	case ElectionOpened:
		if err := requireAggregate(ev.Type, e.ElectionID, e.Version); err != nil {
			return nil, nil, err
		}
		item := ElectionFeedItem(e.ElectionID, e.Role, e.Status, "", orEventTime(e.OpenedAt, ev))
		return pick(p.election(e.ElectionID).ApplyOpened(e)), &item, nil
	case ElectionStatusChanged:
		if err := requireAggregate(ev.Type, e.ElectionID, e.Version); err != nil {
			return nil, nil, err
		}
		next, changed := p.election(e.ElectionID).ApplyStatusChanged(e)
		item := ElectionFeedItem(e.ElectionID, next.Role, e.To, e.WinnerAgentID, orEventTime(e.ChangedAt, ev))
		return pick(next, changed), &item, nil
	case StewardElected:
		if e.Role == "" || e.AgentID == "" || e.TermStart.IsZero() {
			return nil, nil, invalidEvent(ev.Type, "role, agent id and term start are required")
		}
		return pick(p.steward(e.Role).ApplyElected(e)), nil, nil
	case StewardTermEnded:
		if e.Role == "" || e.AgentID == "" {
			return nil, nil, invalidEvent(ev.Type, "role and agent id are required")
		}
		if e.EndedAt.IsZero() {
			e.EndedAt = ev.Time
		}
		return pick(p.steward(e.Role).ApplyTermEnded(e)), nil, nil

	case AnnouncementPosted:
		if err := requireAggregate(ev.Type, e.PostID, e.Version); err != nil {
			return nil, nil, err
		}
		item := AnnouncementFeedItem(e.PostID, e.Content, orEventTime(e.PostedAt, ev))
		return pick(p.announcement(e.PostID).ApplyPosted(e)), &item, nil
	case AnnouncementPinned:
		if err := requireAggregate(ev.Type, e.PostID, e.Version); err != nil {
			return nil, nil, err
		}
		if e.At.IsZero() {
			e.At = ev.Time
		}
		return pick(p.announcement(e.PostID).ApplyPinned(e)), nil, nil

	case nil:
		return nil, nil, nil // a type the bulletin does not project
	default:
		return nil, nil, invalidEvent(ev.Type, "unexpected payload %T", ev.Data)
	}
}

// orEventTime is the payload's own time, or the event's when the payload
// left it out.
func orEventTime(t time.Time, ev Event) time.Time {
	if t.IsZero() {
		return ev.Time
	}
	return t
}
