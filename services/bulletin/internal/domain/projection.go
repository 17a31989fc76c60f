package domain

import (
	"fmt"
	"slices"
	"time"
)

// FeedWindow is how many feed entries the bulletin shows (CONTRACT §6) and
// therefore how many the projection keeps in memory; older ones live only in
// the store, for GET /api/world/events.
const FeedWindow = 50

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

// Projection is the aggregator's state in memory: one record per aggregate,
// the newest feed entries, and the counters derived from the records. It is
// not safe for concurrent use; one goroutine applies events and renders.
//
// Counters are never incremented blindly: Commit recomputes each from the
// record it replaces and the new one, so only a real change of state moves
// them, and a redelivered event (which plans no change) cannot count twice.
type Projection struct {
	citizens      map[string]Citizen
	plots         map[string]Plot
	tickets       map[string]Ticket
	proposals     map[string]Proposal
	elections     map[string]Election
	stewards      map[string]Steward
	announcements map[string]PostedAnnouncement
	garden        Garden

	feed    []FeedEntry // newest first, at most FeedWindow
	feedIDs map[string]struct{}

	population   int
	plotsClaimed int
	openTickets  int

	dirty sections // what changed since the last render
	cache renderCache
}

// NewProjection returns the state of a world where nothing has happened yet:
// only the commons exists.
func NewProjection() *Projection {
	p := &Projection{
		citizens:      map[string]Citizen{},
		plots:         map[string]Plot{},
		tickets:       map[string]Ticket{},
		proposals:     map[string]Proposal{},
		elections:     map[string]Election{},
		stewards:      map[string]Steward{},
		announcements: map[string]PostedAnnouncement{},
		feedIDs:       map[string]struct{}{},
		dirty:         allSections,
	}
	p.put(CommonsPlot())
	return p
}

// Population is the number of living citizens.
func (p *Projection) Population() int { return p.population }

// PlotsClaimed is the number of citizens' plots (the commons excluded).
func (p *Projection) PlotsClaimed() int { return p.plotsClaimed }

// OpenTickets is the number of open tickets.
func (p *Projection) OpenTickets() int { return p.openTickets }

// Feed returns the newest feed entries, newest first.
func (p *Projection) Feed() []FeedEntry { return slices.Clone(p.feed) }

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
		item := ClaimFeedItem(e.PlotID, e.OwnerAgentID, orEventTime(e.ClaimedAt, ev))
		return pick(p.plot(e.PlotID).ApplyClaimed(e)), &item, nil
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

func (p *Projection) citizen(id string) Citizen {
	if c, ok := p.citizens[id]; ok {
		return c
	}
	return newCitizen(id)
}

func (p *Projection) plot(id string) Plot {
	if pl, ok := p.plots[id]; ok {
		return pl
	}
	return Plot{PlotID: id}
}

func (p *Projection) ticket(id string) Ticket {
	if t, ok := p.tickets[id]; ok {
		return t
	}
	return Ticket{TicketID: id}
}

func (p *Projection) proposal(id string) Proposal {
	if pr, ok := p.proposals[id]; ok {
		return pr
	}
	return Proposal{ProposalID: id}
}

func (p *Projection) election(id string) Election {
	if e, ok := p.elections[id]; ok {
		return e
	}
	return Election{ElectionID: id}
}

func (p *Projection) steward(role string) Steward {
	if s, ok := p.stewards[role]; ok {
		return s
	}
	return Steward{Role: role}
}

func (p *Projection) announcement(id string) PostedAnnouncement {
	if a, ok := p.announcements[id]; ok {
		return a
	}
	return PostedAnnouncement{PostID: id}
}

// Commit makes a planned change part of the state. feedInserted is false
// when the store already held the feed entry (written before a crash, say):
// such an entry is too old for the window, or memory would have known it.
func (p *Projection) Commit(ch Change, feedInserted bool) {
	if ch.Record != nil {
		p.put(ch.Record)
	}
	if ch.Feed != nil && feedInserted {
		p.addFeed(*ch.Feed)
	}
}

// Restore loads a record read back from the store at start.
func (p *Projection) Restore(r Record) { p.put(r) }

// RestoreFeed loads feed entries read back from the store at start.
func (p *Projection) RestoreFeed(entries []FeedEntry) {
	for _, e := range entries {
		p.addFeed(e)
	}
}

// put replaces a record and moves the counters by the difference between
// the old and the new record.
func (p *Projection) put(r Record) {
	switch r := r.(type) {
	case Citizen:
		old := p.citizens[r.AgentID]
		p.population += b2i(r.Counts()) - b2i(old.Counts())
		p.citizens[r.AgentID] = r
		p.dirty |= sectionCitizens
	case Plot:
		old := p.plots[r.PlotID]
		p.plotsClaimed += b2i(r.CountsAsClaimed()) - b2i(old.CountsAsClaimed())
		p.plots[r.PlotID] = r
		p.dirty |= sectionPlots
	case Ticket:
		old := p.tickets[r.TicketID]
		p.openTickets += b2i(r.IsOpen()) - b2i(old.IsOpen())
		p.tickets[r.TicketID] = r
		p.dirty |= sectionTickets
	case Proposal:
		p.proposals[r.ProposalID] = r
		p.dirty |= sectionGovernance
	case Election:
		p.elections[r.ElectionID] = r
		p.dirty |= sectionGovernance
	case Steward:
		p.stewards[r.Role] = r
		p.dirty |= sectionGovernance
	case PostedAnnouncement:
		p.announcements[r.PostID] = r
		p.dirty |= sectionAnnouncements
	case Garden:
		p.garden = r
	default:
		panic(fmt.Sprintf("domain: unknown record %T", r))
	}
}

// addFeed inserts an entry in order and keeps the newest FeedWindow.
func (p *Projection) addFeed(e FeedEntry) {
	if _, dup := p.feedIDs[e.EventID]; dup {
		return
	}
	i, _ := slices.BinarySearchFunc(p.feed, e, func(have, want FeedEntry) int {
		if have.NewerThan(want) {
			return -1
		}
		return 1
	})
	if i >= FeedWindow {
		return
	}
	p.feed = slices.Insert(p.feed, i, e)
	p.feedIDs[e.EventID] = struct{}{}
	if len(p.feed) > FeedWindow {
		delete(p.feedIDs, p.feed[FeedWindow].EventID)
		p.feed = p.feed[:FeedWindow]
	}
	p.dirty |= sectionFeed
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// FeedWouldShow reports whether an entry would enter the in-memory window.
// Only an entry that would not (an old one) can be one the store already
// holds without memory knowing: the window mirrors the store's newest
// entries.
func (p *Projection) FeedWouldShow(e FeedEntry) bool {
	if _, dup := p.feedIDs[e.EventID]; dup {
		return false
	}
	return len(p.feed) < FeedWindow || e.NewerThan(p.feed[len(p.feed)-1])
}
