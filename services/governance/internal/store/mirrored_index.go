package store

import (
	"strings"
	"time"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/governance/internal/domain"
)

// listMirror is Mirrored's copy: proposals and elections in memory without
// their ballots, in list order: newest first, walked from the end of an
// oldest-first order. Reads of one aggregate with its ballots stay reads
// by _id.
type listMirror struct {
	proposals       *mongox.Mirror[proposalDoc]
	proposalsNewest *mongox.Order[proposalDoc]
	elections       *mongox.Mirror[electionDoc]
	electionsNewest *mongox.Order[electionDoc]
}

// listMirrorOf is db's copy of proposals and elections; nil when db is
// shared (another writer's changes would never reach it).
func listMirrorOf(db *mongox.DB) *listMirror {
	p := mongox.MirrorOf(db, "proposals", func(d *proposalDoc) string { return d.ID })
	e := mongox.MirrorOf(db, "elections", func(d *electionDoc) string { return d.ID })
	if p == nil || e == nil {
		return nil
	}
	return &listMirror{
		proposals: p,
		proposalsNewest: p.Order("newest", func(a, b *proposalDoc) int {
			if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
				return c
			}
			return strings.Compare(a.ID, b.ID)
		}, nil),
		elections: e,
		electionsNewest: e.Order("newest", func(a, b *electionDoc) int {
			if c := a.OpenedAt.Compare(b.OpenedAt); c != 0 {
				return c
			}
			return strings.Compare(a.ID, b.ID)
		}, nil),
	}
}

// putProposal keeps a written proposal, its ballots left out.
func (m *listMirror) putProposal(id string, d *proposalDoc) {
	if d == nil {
		m.proposals.Delete(id)
		return
	}
	row := *d
	row.Ballots = nil
	m.proposals.Put(row)
}

// putElection keeps a written election, its ballots left out.
func (m *listMirror) putElection(id string, d *electionDoc) {
	if d == nil {
		m.elections.Delete(id)
		return
	}
	row := *d
	row.Ballots = nil
	m.elections.Put(row)
}

func (m *listMirror) listProposals(q domain.ProposalQuery) []domain.Proposal {
	out := []domain.Proposal{}
	var below func(*proposalDoc) bool
	if a := q.After; a != nil {
		at := clock.Stored(a.CreatedAt)
		below = func(d *proposalDoc) bool {
			if c := d.CreatedAt.Compare(at); c != 0 {
				return c < 0
			}
			return d.ID < a.ID
		}
	}
	m.proposalsNewest.Descend(below, func(d *proposalDoc) bool {
		if (q.Status == nil || d.Status == string(*q.Status)) && (q.Type == nil || d.Type == string(*q.Type)) {
			out = append(out, *d.proposal())
		}
		return q.Limit <= 0 || len(out) < q.Limit
	})
	return out
}

func (m *listMirror) dueProposals(now time.Time) []domain.Proposal {
	now = clock.Stored(now)
	out := []domain.Proposal{}
	m.proposals.Scan(func(d *proposalDoc) bool {
		if d.Status == string(domain.Discussion) && !d.DiscussionEndsAt.After(now) ||
			d.Status == string(domain.Voting) && !d.VotingEndsAt.After(now) || d.RecallPending {
			out = append(out, *d.proposal())
		}
		return true
	})
	return out
}

func (m *listMirror) countProposals() map[domain.ProposalStatus]int64 {
	out := map[domain.ProposalStatus]int64{}
	for _, st := range domain.ProposalStatuses {
		out[st] = 0
	}
	m.proposals.Scan(func(d *proposalDoc) bool {
		if _, ok := out[domain.ProposalStatus(d.Status)]; ok {
			out[domain.ProposalStatus(d.Status)]++
		}
		return true
	})
	return out
}

func (m *listMirror) listElections(q domain.ElectionQuery) []domain.Election {
	out := []domain.Election{}
	m.electionsNewest.Descend(nil, func(d *electionDoc) bool {
		if (q.Status == nil || d.Status == string(*q.Status)) && (q.Role == nil || d.Role == string(*q.Role)) {
			out = append(out, *d.election())
		}
		return true
	})
	return out
}

func (m *listMirror) firstElectionAt() (time.Time, bool) {
	var at time.Time
	found := false
	m.electionsNewest.Ascend(nil, func(d *electionDoc) bool {
		at, found = d.OpenedAt.UTC(), true
		return false
	})
	return at, found
}
