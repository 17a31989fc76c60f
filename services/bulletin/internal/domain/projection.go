package domain

import "fmt"

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
	occupancy     occupancy

	feed    []FeedEntry // newest first, at most FeedWindow
	feedIDs map[string]struct{}

	population   int
	plotsClaimed int
	openTickets  int

	dirty sections // what changed since the last render
	cache renderCache
	shown shownLists
}

// shownLists are the records of the bulletin's longer lists, kept as the
// records change (topK), so that a rendering does not walk every record.
type shownLists struct {
	citizens *topK[Citizen]
	plots    *topK[Plot]
	tickets  *topK[Ticket]
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
		occupancy:     newOccupancy(),
		dirty:         allSections,
		shown: shownLists{
			citizens: newTopK(RecentCitizensShown, citizenNewer, citizenListed, func(c Citizen) string { return c.AgentID }),
			plots:    newTopK(PlotsShown, plotFirst, plotListed, func(p Plot) string { return p.PlotID }),
			tickets:  newTopK(OpenTicketsShown, Ticket.newerThan, Ticket.IsOpen, func(t Ticket) string { return t.TicketID }),
		},
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
		p.shown.citizens.update(old, r)
		p.dirty |= sectionCitizens
	case Plot:
		old := p.plots[r.PlotID]
		p.plotsClaimed += b2i(r.CountsAsClaimed()) - b2i(old.CountsAsClaimed())
		p.plots[r.PlotID] = r
		p.shown.plots.update(old, r)
		p.occupancy.set(r)
		p.dirty |= sectionPlots
	case Ticket:
		old := p.tickets[r.TicketID]
		p.openTickets += b2i(r.IsOpen()) - b2i(old.IsOpen())
		p.tickets[r.TicketID] = r
		p.shown.tickets.update(old, r)
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

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
