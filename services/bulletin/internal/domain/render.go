package domain

import (
	"iter"
	"maps"
	"slices"
	"time"

	"sharedworld.dev/pkg/clock"
)

// How much of each list the bulletin shows (CONTRACT §6, §11).
const (
	RecentCitizensShown  = 10
	OpenTicketsShown     = 10
	AnnouncementsShown   = 20
	PlotsShown           = 1000
	ActiveProposalsShown = 50
)

// Offices in the order the governance service lists them (CONTRACT §7).
var officeOrder = []string{"chief", "land", "peace", "archive", "embassy"}

// sections marks the parts of the document whose records changed, so a
// render rebuilds only those lists; the rest come from the cache.
type sections uint8

const (
	sectionCitizens sections = 1 << iota
	sectionPlots
	sectionTickets
	sectionGovernance
	sectionAnnouncements
	sectionFeed

	allSections = sectionCitizens | sectionPlots | sectionTickets | sectionGovernance | sectionAnnouncements | sectionFeed
)

type renderCache struct {
	citizens       []CitizenView
	plots          []PlotView
	tickets        []TicketView
	proposals      []ProposalView
	stewards       []StewardView
	elections      []ElectionView
	electionsExist bool
	announcements  []AnnouncementView
	pinned         *AnnouncementView
	feed           []FeedItemView
}

// Bulletin builds the document from the projections and the world's
// configuration. Lists whose records did not change since the last call are
// reused, so rendering after a feed-only event does not walk every plot.
func (p *Projection) Bulletin(cfg WorldConfig) Bulletin {
	p.refresh()
	c := &p.cache
	return Bulletin{
		OK: true,
		World: WorldView{
			Name:          cfg.Name,
			Founded:       cfg.Founded.UTC().Format(time.DateOnly),
			Population:    p.population,
			PlotsClaimed:  p.plotsClaimed,
			Phase:         cfg.PhaseAt(p.population),
			NextMilestone: cfg.MilestoneAt(p.population),
			LogicFlag:     cfg.LogicFlag,
			Note:          cfg.NoteAt(p.population),
		},
		PinnedAnnouncement: c.pinned,
		Pinned:             c.pinned,
		Announcements:      c.announcements,
		Events:             c.announcements,
		Feed:               c.feed,
		Garden: GardenView{
			PlotID:        CommonsPlotID,
			Coordinates:   Coordinates{X: 0, Y: 0},
			WritePrefixes: []string{GardenWritePrefix},
			Plant:         GardenPlant,
			Tend:          GardenTendPath,
			Rule:          GardenRule,
			Files:         p.garden.Files,
		},
		Plots: c.plots,
		Governance: GovernanceView{
			ActiveProposals:   c.proposals,
			Stewards:          c.stewards,
			UpcomingElections: c.elections,
			ElectionTrigger:   cfg.ElectionTriggerText(p.population, c.electionsExist),
		},
		Community: CommunityView{RecentCitizens: c.citizens, CommonsChannels: CommonsChannels},
		Feedback: FeedbackView{
			OpenTickets:    p.openTickets,
			OpenTicketList: c.tickets,
			SubmitTicket:   SubmitTicketPath,
			ViewTickets:    ViewTicketsPath,
		},
		Links: BoardLinks,
	}
}

// refresh rebuilds the cached lists of the dirty sections.
func (p *Projection) refresh() {
	d, c := p.dirty, &p.cache
	p.dirty = 0
	if d&sectionCitizens != 0 {
		c.citizens = citizenViews(p.shown.citizens.list(func() []Citizen { return newestCitizens(p.citizens) }))
	}
	if d&sectionPlots != 0 {
		c.plots = plotViews(p.shown.plots.list(func() []Plot { return firstPlots(p.plots) }))
	}
	if d&sectionTickets != 0 {
		c.tickets = ticketViews(p.shown.tickets.list(func() []Ticket { return newestOpenTickets(p.tickets) }))
	}
	if d&sectionGovernance != 0 {
		c.proposals = proposalViews(p.proposals)
		c.stewards = stewardViews(p.stewards)
		c.elections = electionViews(p.elections)
		c.electionsExist = len(p.elections) > 0
	}
	if d&sectionAnnouncements != 0 {
		c.announcements, c.pinned = announcementViews(p.announcements)
	}
	if d&sectionFeed != 0 {
		c.feed = make([]FeedItemView, len(p.feed))
		for i, e := range p.feed {
			c.feed[i] = e.Item.View()
		}
	}
}

// firstK returns the first k items of seq in the order given by before,
// holding only k items at a time (the projection may hold far more): a
// bounded heap whose root is the last item kept, so each further item costs
// one comparison, or a replacement in O(log k).
func firstK[T any](seq iter.Seq[T], k int, before func(a, b T) bool) []T {
	h := make([]T, 0, k)
	// after orders the heap: the root is the item that sorts last.
	after := func(i, j int) bool { return before(h[j], h[i]) }
	down := func(i int) {
		for {
			l, m := 2*i+1, i
			if l < len(h) && after(l, m) {
				m = l
			}
			if r := l + 1; r < len(h) && after(r, m) {
				m = r
			}
			if m == i {
				return
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	for v := range seq {
		switch {
		case len(h) < k:
			h = append(h, v)
			for i := len(h) - 1; i > 0 && after(i, (i-1)/2); i = (i - 1) / 2 {
				h[i], h[(i-1)/2] = h[(i-1)/2], h[i]
			}
		case k > 0 && before(v, h[0]):
			h[0] = v
			down(0)
		}
	}
	slices.SortFunc(h, func(a, b T) int {
		if before(a, b) {
			return -1
		}
		if before(b, a) {
			return 1
		}
		return 0
	})
	return h
}

func filtered[T any](m map[string]T, keep func(T) bool) iter.Seq[T] {
	return func(yield func(T) bool) {
		for v := range maps.Values(m) {
			if keep(v) && !yield(v) {
				return
			}
		}
	}
}

// citizenListed and citizenNewer are the selection and order of the
// bulletin's recent citizens.
func citizenListed(c Citizen) bool { return c.Counts() && !c.RegisteredAt.IsZero() }

func citizenNewer(a, b Citizen) bool {
	if !a.RegisteredAt.Equal(b.RegisteredAt) {
		return a.RegisteredAt.After(b.RegisteredAt)
	}
	if a.CitizenNumber != b.CitizenNumber {
		return a.CitizenNumber > b.CitizenNumber
	}
	return a.AgentID > b.AgentID
}

func newestCitizens(m map[string]Citizen) []Citizen {
	return firstK(filtered(m, citizenListed), RecentCitizensShown, citizenNewer)
}

func citizenViews(newest []Citizen) []CitizenView {
	out := make([]CitizenView, len(newest))
	for i, c := range newest {
		out[i] = CitizenView{AgentID: c.AgentID, Name: nullable(c.Name), RegisteredAt: clock.Timestamp(c.RegisteredAt)}
	}
	return out
}

// plotListed and plotFirst are the selection and order of the bulletin's
// plots: by x, then y (a cell holds one plot; the id only makes it total).
func plotListed(p Plot) bool { return p.Claimed }

func plotFirst(a, b Plot) bool {
	if a.X != b.X {
		return a.X < b.X
	}
	if a.Y != b.Y {
		return a.Y < b.Y
	}
	return a.PlotID < b.PlotID
}

// firstPlots selects on small (x, y, id) keys rather than whole records:
// the plots list is the one that can be long, and moving records around the
// selection heap was most of a selection's time.
func firstPlots(m map[string]Plot) []Plot {
	type cell struct {
		x, y int
		id   string
	}
	cells := func(yield func(cell) bool) {
		for id, p := range m {
			if plotListed(p) && !yield(cell{p.X, p.Y, id}) {
				return
			}
		}
	}
	first := firstK(cells, PlotsShown, func(a, b cell) bool {
		return a.x < b.x || (a.x == b.x && (a.y < b.y || (a.y == b.y && a.id < b.id)))
	})
	out := make([]Plot, len(first))
	for i, c := range first {
		out[i] = m[c.id]
	}
	return out
}

func plotViews(first []Plot) []PlotView {
	out := make([]PlotView, len(first))
	for i, p := range first {
		out[i] = PlotView{PlotID: p.PlotID, X: p.X, Y: p.Y, DisplayName: nullable(p.DisplayName), OwnerAgentID: p.OwnerAgentID}
	}
	return out
}

func newestOpenTickets(m map[string]Ticket) []Ticket {
	return firstK(filtered(m, Ticket.IsOpen), OpenTicketsShown, Ticket.newerThan)
}

func ticketViews(newest []Ticket) []TicketView {
	out := make([]TicketView, len(newest))
	for i, t := range newest {
		out[i] = TicketView{TicketID: t.TicketID, Category: t.Category, Title: t.Title, Status: t.Status, CreatedAt: clock.Timestamp(t.CreatedAt)}
	}
	return out
}

// proposalViews lists active proposals by their next deadline, soonest
// first: what a citizen can still act on, most urgent on top.
func proposalViews(m map[string]Proposal) []ProposalView {
	deadline := func(p Proposal) time.Time {
		if p.Status == ProposalDiscussion {
			return p.DiscussionEndsAt
		}
		return p.VotingEndsAt
	}
	soonest := firstK(filtered(m, Proposal.IsActive), ActiveProposalsShown, func(a, b Proposal) bool {
		da, db := deadline(a), deadline(b)
		if !da.Equal(db) {
			return da.Before(db)
		}
		return a.ProposalID < b.ProposalID
	})
	out := make([]ProposalView, len(soonest))
	for i, p := range soonest {
		out[i] = ProposalView{
			ProposalID: p.ProposalID, Type: p.Type, Title: p.Title, Status: p.Status, ProposedBy: p.ProposedBy,
			CreatedAt: timestamp(p.CreatedAt), DiscussionEndsAt: timestamp(p.DiscussionEndsAt), VotingEndsAt: timestamp(p.VotingEndsAt),
			VotesFor: p.Tally.For, VotesAgainst: p.Tally.Against, VotesAbstain: p.Tally.Abstain, TotalEligible: p.TotalEligible,
		}
	}
	return out
}

func stewardViews(m map[string]Steward) []StewardView {
	out := []StewardView{}
	for _, role := range officeOrder {
		if s, ok := m[role]; ok && s.Active {
			out = append(out, StewardView{AgentID: s.AgentID, Role: s.Role, TermStart: clock.Timestamp(s.TermStart),
				TermEnd: clock.Timestamp(s.TermEnd), TermNumber: s.TermNumber})
		}
	}
	return out
}

func electionViews(m map[string]Election) []ElectionView {
	upcoming := slices.Collect(filtered(m, Election.IsUpcoming))
	slices.SortFunc(upcoming, func(a, b Election) int {
		if ra, rb := officeRank(a.Role), officeRank(b.Role); ra != rb {
			return ra - rb
		}
		if c := a.OpenedAt.Compare(b.OpenedAt); c != 0 {
			return c
		}
		if a.ElectionID < b.ElectionID {
			return -1
		}
		return 1
	})
	out := make([]ElectionView, len(upcoming))
	for i, e := range upcoming {
		out[i] = ElectionView{ElectionID: e.ElectionID, Role: e.Role, Status: e.Status, OpenedAt: timestamp(e.OpenedAt),
			NominationsEndAt: timestamp(e.NominationsEndAt), VotingEndsAt: timestamp(e.VotingEndsAt)}
	}
	return out
}

func officeRank(role string) int {
	if i := slices.Index(officeOrder, role); i >= 0 {
		return i
	}
	return len(officeOrder)
}

// announcementViews lists the newest announcements and picks the pinned
// one. Only one is shown as pinned: if two records say pinned (the unpin of
// the older is still on its way), the one pinned last wins, and the list
// says pinned 1 for it alone.
func announcementViews(m map[string]PostedAnnouncement) ([]AnnouncementView, *AnnouncementView) {
	var pinned *PostedAnnouncement
	for _, a := range m {
		if a.Pinned && a.PostedAt.IsZero() {
			continue // pinned before its text arrived: nothing to show yet
		}
		if a.Pinned && (pinned == nil || a.pinnedLater(*pinned)) {
			pinned = &a
		}
	}
	listed := filtered(m, func(a PostedAnnouncement) bool { return !a.PostedAt.IsZero() })
	newest := firstK(listed, AnnouncementsShown, PostedAnnouncement.newerThan)
	view := func(a PostedAnnouncement) AnnouncementView {
		v := AnnouncementView{PostID: a.PostID, Title: a.Title, Content: a.Content, PostedAt: clock.Timestamp(a.PostedAt)}
		if pinned != nil && a.PostID == pinned.PostID {
			v.Pinned = 1
		}
		return v
	}
	out := make([]AnnouncementView, len(newest))
	for i, a := range newest {
		out[i] = view(a)
	}
	if pinned == nil {
		return out, nil
	}
	pv := view(*pinned)
	return out, &pv
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func timestamp(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := clock.Timestamp(t)
	return &s
}
