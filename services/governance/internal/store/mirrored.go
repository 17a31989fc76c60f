package store

import (
	"context"
	"time"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/governance/internal/domain"
)

// Mirrored is the governance adapter of the embedded default, where this
// process is the database's only writer: the MongoDB adapter, whose writes
// of proposals and elections it keeps in an in-memory copy, answering the
// lists, the counts, the check's due list and the first election from
// memory. FerretDB decodes every proposal for a page, a count or the due
// list; here those cost what they cost on MongoDB's indexes. Offices (five
// documents) and reads of one aggregate with its ballots stay as stored.
type Mirrored struct {
	*Store
	copy *listMirror
}

var _ domain.Repository = (*Mirrored)(nil)

// NewMirrored keeps governance as New does, with the in-memory copy. db
// must be exclusive: another writer's changes would never reach the copy.
func NewMirrored(db *mongox.DB, encode Encoder, notify mongox.Notifier) *Mirrored {
	copy := listMirrorOf(db)
	if copy == nil {
		panic("store.NewMirrored: the database is shared; use New")
	}
	m := &Mirrored{Store: New(db, encode, notify), copy: copy}
	// mongox.Docs reports every write while it holds the document's lock,
	// so the copy is never behind a write that was answered.
	m.proposals.Written = copy.putProposal
	m.elections.Written = copy.putElection
	return m
}

// EnsureIndexes creates the indexes and loads the stored proposals and
// elections into memory.
func (m *Mirrored) EnsureIndexes(ctx context.Context) error {
	if err := m.Store.EnsureIndexes(ctx); err != nil {
		return err
	}
	return m.load(ctx)
}

// load fills the copy from the stored proposals and elections, without
// their ballots (one scan each, at start; later calls return at once).
func (m *Mirrored) load(ctx context.Context) error {
	if err := m.copy.proposals.Load(ctx, func(ctx context.Context) ([]proposalDoc, error) {
		return mongox.ScanAll[proposalDoc](ctx, m.copy.proposals, m.proposals.Collection(), withoutBallots)
	}); err != nil {
		return err
	}
	return m.copy.elections.Load(ctx, func(ctx context.Context) ([]electionDoc, error) {
		return mongox.ScanAll[electionDoc](ctx, m.copy.elections, m.elections.Collection(), withoutBallots)
	})
}

// Proposals walks the list order in memory.
func (m *Mirrored) Proposals(ctx context.Context, q domain.ProposalQuery) ([]domain.Proposal, error) {
	if err := m.load(ctx); err != nil {
		return nil, err
	}
	return m.copy.listProposals(q), nil
}

// DueProposals scans the proposals in memory.
func (m *Mirrored) DueProposals(ctx context.Context, now time.Time) ([]domain.Proposal, error) {
	if err := m.load(ctx); err != nil {
		return nil, err
	}
	return m.copy.dueProposals(now), nil
}

// CountProposals counts the proposals in memory by status.
func (m *Mirrored) CountProposals(ctx context.Context) (map[domain.ProposalStatus]int64, error) {
	if err := m.load(ctx); err != nil {
		return nil, err
	}
	return m.copy.countProposals(), nil
}

// Elections walks the election order in memory.
func (m *Mirrored) Elections(ctx context.Context, q domain.ElectionQuery) ([]domain.Election, error) {
	if err := m.load(ctx); err != nil {
		return nil, err
	}
	return m.copy.listElections(q), nil
}

// FirstElectionAt is the oldest election in memory.
func (m *Mirrored) FirstElectionAt(ctx context.Context) (time.Time, bool, error) {
	if err := m.load(ctx); err != nil {
		return time.Time{}, false, err
	}
	at, ok := m.copy.firstElectionAt()
	return at, ok, nil
}
