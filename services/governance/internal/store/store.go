// Package store holds the governance service's two adapters of
// domain.Repository: Store, the MongoDB adapter (production queries only),
// and Mirrored, which embeds it for the embedded default and answers the
// lists from memory. Each aggregate is one document carrying its state,
// its (sealed) ballots and, in its outbox, the events of its writes not
// yet published: proposals, elections, and offices (keyed by role).
// Every change goes through mongox.Docs: decided on the current document,
// written with its events in one write, version-guarded where other
// replicas write. A ballot is part of its proposal's write, so "one per
// citizen" and the counters can never disagree, whatever races.
package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/services/governance/internal/domain"
)

// Encoder turns a domain event into an outbox event.
type Encoder func(domain.Event) (events.Event, error)

// Store keeps governance in MongoDB; it is a domain.Repository.
type Store struct {
	proposals *mongox.Docs[proposalDoc, events.Event]
	elections *mongox.Docs[electionDoc, events.Event]
	offices   *mongox.Docs[officeDoc, events.Event]
	encode    Encoder
}

var _ domain.Repository = (*Store)(nil)

// New keeps governance in db and tells notify (the outbox relay) about
// every write that leaves events.
func New(db *mongox.DB, encode Encoder, notify mongox.Notifier) *Store {
	return &Store{
		proposals: mongox.NewDocs[proposalDoc, events.Event](db, "proposals", notify),
		elections: mongox.NewDocs[electionDoc, events.Event](db, "elections", notify),
		offices:   mongox.NewDocs[officeDoc, events.Event](db, "offices", notify),
		encode:    encode,
	}
}

// BeforeProposalWrite lets a test play a replica that writes a proposal
// between a change's read and its write.
func (s *Store) BeforeProposalWrite(fn func(ctx context.Context, id string)) {
	s.proposals.BeforeWrite = fn
}

// Collections are the collections whose documents carry outboxes, in the
// order the relay drains them.
func (s *Store) Collections() []*mongo.Collection {
	return []*mongo.Collection{s.proposals.Collection(), s.elections.Collection(), s.offices.Collection()}
}

// EnsureIndexes creates the unique keys and the list and due indexes.
func (s *Store) EnsureIndexes(ctx context.Context) error {
	newest := []bson.E{{Key: "created_at", Value: -1}, {Key: "_id", Value: -1}}
	if err := mongox.EnsureIndexes(ctx, s.proposals.Collection(),
		mongox.Index("daily_slot", true, bson.E{Key: "proposed_by", Value: 1}, bson.E{Key: "day", Value: 1}, bson.E{Key: "slot", Value: 1}),
		mongox.Index("newest", false, newest...),
		mongox.Index("status_newest", false, append([]bson.E{{Key: "status", Value: 1}}, newest...)...),
		mongox.Index("discussion_due", false, bson.E{Key: "status", Value: 1}, bson.E{Key: "discussion_ends_at", Value: 1}),
		mongox.Index("voting_due", false, bson.E{Key: "status", Value: 1}, bson.E{Key: "voting_ends_at", Value: 1}),
		mongox.Index("recall_pending", false, bson.E{Key: "recall_pending", Value: 1}),
	); err != nil {
		return err
	}
	return mongox.EnsureIndexes(ctx, s.elections.Collection(),
		mongox.Index("opening_key", true, bson.E{Key: "opening_key", Value: 1}),
		mongox.Index("status_opened", false, bson.E{Key: "status", Value: 1}, bson.E{Key: "opened_at", Value: 1}),
	)
}

// withoutBallots leaves the ballots and the outbox out of list reads.
var withoutBallots = bson.M{"ballots": 0, mongox.OutboxField: 0}

func (s *Store) encodeAll(evs []domain.Event) ([]events.Event, error) {
	out := make([]events.Event, 0, len(evs))
	for _, e := range evs {
		ev, err := s.encode(e)
		if err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	return out, nil
}

// changeErr maps the storage errors of a change onto the contract's.
func changeErr(err error, notFound func() error) error {
	switch {
	case errors.Is(err, mongox.ErrNotFound):
		return notFound()
	case errors.Is(err, mongox.ErrVersionClash):
		return problem.Unavailable("Governance is changing too fast to record this right now.", "Retry in a moment.")
	}
	return err
}

// change adapts a domain change function to mongox.Docs.Update.
func change[D any, A any](s *Store, fn func(*A) ([]domain.Event, error), load func(*D) *A, store func(*D, *A)) func(*D) ([]events.Event, error) {
	return func(d *D) ([]events.Event, error) {
		a := load(d)
		evs, err := fn(a)
		if errors.Is(err, domain.ErrNoChange) {
			return nil, mongox.ErrNoChange
		}
		if err != nil {
			return nil, err
		}
		out, err := s.encodeAll(evs)
		if err != nil {
			return nil, err
		}
		store(d, a)
		return out, nil
	}
}

// Propose stores the proposal in the proposer's first free slot of day.
func (s *Store) Propose(ctx context.Context, by, day string, slots []int, build func(id string) (*domain.Proposal, domain.ProposalCreated)) (domain.Proposal, error) {
	for _, slot := range slots {
		d, err := s.proposals.Create(ctx, domain.ProposalIDPrefix, func(id string) (proposalDoc, []events.Event, error) {
			p, created := build(id)
			ev, err := s.encode(created)
			if err != nil {
				return proposalDoc{}, nil, err
			}
			var d proposalDoc
			d.set(p)
			d.Day, d.Slot = day, slot
			return d, []events.Event{ev}, nil
		})
		if errors.Is(err, mongox.ErrDuplicate) {
			continue
		}
		if err != nil {
			return domain.Proposal{}, fmt.Errorf("store proposal: %w", err)
		}
		return d.proposal().Snapshot(), nil
	}
	return domain.Proposal{}, domain.ErrSlotsTaken
}

// Proposal reads one proposal with its ballots.
func (s *Store) Proposal(ctx context.Context, id string) (*domain.Proposal, error) {
	d, err := s.proposals.Get(ctx, id)
	if err != nil {
		return nil, changeErr(err, func() error { return domain.ErrProposalNotFound(id) })
	}
	return d.proposal(), nil
}

// ChangeProposal applies fn to the current proposal.
func (s *Store) ChangeProposal(ctx context.Context, id string, fn func(*domain.Proposal) ([]domain.Event, error)) (domain.Proposal, error) {
	d, err := s.proposals.Update(ctx, id, change(s, fn, (*proposalDoc).proposal, (*proposalDoc).set))
	if err != nil {
		return domain.Proposal{}, changeErr(err, func() error { return domain.ErrProposalNotFound(id) })
	}
	return d.proposal().Snapshot(), nil
}

// Proposals lists proposals newest first, without their ballots.
func (s *Store) Proposals(ctx context.Context, q domain.ProposalQuery) ([]domain.Proposal, error) {
	f := bson.M{}
	if q.Status != nil {
		f["status"] = string(*q.Status)
	}
	if q.Type != nil {
		f["type"] = string(*q.Type)
	}
	if a := q.After; a != nil {
		f["$or"] = bson.A{
			bson.M{"created_at": bson.M{"$lt": a.CreatedAt}},
			bson.M{"created_at": a.CreatedAt, "_id": bson.M{"$lt": a.ID}},
		}
	}
	opts := options.Find().SetProjection(withoutBallots).SetSort(bson.D{{Key: "created_at", Value: -1}, {Key: "_id", Value: -1}})
	if q.Limit > 0 {
		opts.SetLimit(int64(q.Limit))
	}
	return findProposals(ctx, s.proposals.Collection(), f, opts)
}

// DueProposals are the proposals with a deadline at or before now and the
// passed recalls not yet applied.
func (s *Store) DueProposals(ctx context.Context, now time.Time) ([]domain.Proposal, error) {
	f := bson.M{"$or": bson.A{
		bson.M{"status": string(domain.Discussion), "discussion_ends_at": bson.M{"$lte": now}},
		bson.M{"status": string(domain.Voting), "voting_ends_at": bson.M{"$lte": now}},
		bson.M{"recall_pending": true},
	}}
	return findProposals(ctx, s.proposals.Collection(), f, options.Find().SetProjection(withoutBallots))
}

func findProposals(ctx context.Context, coll *mongo.Collection, f bson.M, opts *options.FindOptions) ([]domain.Proposal, error) {
	docs, err := mongox.FindAll[proposalDoc](ctx, coll, f, opts)
	if err != nil {
		return nil, err
	}
	out := make([]domain.Proposal, len(docs))
	for i := range docs {
		out[i] = *docs[i].proposal()
	}
	return out, nil
}

// CountProposals counts proposals in each status.
func (s *Store) CountProposals(ctx context.Context) (map[domain.ProposalStatus]int64, error) {
	out := map[domain.ProposalStatus]int64{}
	for _, st := range domain.ProposalStatuses {
		n, err := s.proposals.Collection().CountDocuments(ctx, bson.M{"status": string(st)})
		if err != nil {
			return nil, err
		}
		out[st] = n
	}
	return out, nil
}
