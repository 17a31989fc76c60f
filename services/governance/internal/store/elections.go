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
	"sharedworld.dev/services/governance/internal/domain"
)

// OpenElection inserts role's election opening at at, or returns the one
// already opened then (the opening key is unique).
func (s *Store) OpenElection(ctx context.Context, role domain.Office, at time.Time, build func(id string) (*domain.Election, domain.ElectionOpened)) (domain.Election, error) {
	d, err := s.elections.Create(ctx, domain.ElectionIDPrefix, func(id string) (electionDoc, []events.Event, error) {
		e, opened := build(id)
		ev, err := s.encode(opened)
		if err != nil {
			return electionDoc{}, nil, err
		}
		var d electionDoc
		d.set(e)
		return d, []events.Event{ev}, nil
	})
	if errors.Is(err, mongox.ErrDuplicate) {
		var held electionDoc
		if err := s.elections.Collection().FindOne(ctx, bson.M{"opening_key": openingKey(role, at)},
			options.FindOne().SetProjection(withoutBallots)).Decode(&held); err != nil {
			return domain.Election{}, fmt.Errorf("find opened election: %w", err)
		}
		return *held.election(), nil
	}
	if err != nil {
		return domain.Election{}, fmt.Errorf("open election: %w", err)
	}
	return *d.election(), nil
}

// Election reads one election with its ballots.
func (s *Store) Election(ctx context.Context, id string) (*domain.Election, error) {
	d, err := s.elections.Get(ctx, id)
	if err != nil {
		return nil, changeErr(err, func() error { return domain.ErrElectionNotFound(id) })
	}
	return d.election(), nil
}

// ChangeElection applies fn to the current election.
func (s *Store) ChangeElection(ctx context.Context, id string, fn func(*domain.Election) ([]domain.Event, error)) (domain.Election, error) {
	d, err := s.elections.Update(ctx, id, change(s, fn, (*electionDoc).election, (*electionDoc).set))
	if err != nil {
		return domain.Election{}, changeErr(err, func() error { return domain.ErrElectionNotFound(id) })
	}
	return d.election().Snapshot(), nil
}

// Elections lists elections, newest opening first, without ballots.
func (s *Store) Elections(ctx context.Context, q domain.ElectionQuery) ([]domain.Election, error) {
	f := bson.M{}
	if q.Status != nil {
		f["status"] = string(*q.Status)
	}
	if q.Role != nil {
		f["role"] = string(*q.Role)
	}
	docs, err := mongox.FindAll[electionDoc](ctx, s.elections.Collection(), f,
		options.Find().SetProjection(withoutBallots).SetSort(bson.D{{Key: "opened_at", Value: -1}, {Key: "_id", Value: -1}}))
	if err != nil {
		return nil, err
	}
	out := make([]domain.Election, len(docs))
	for i := range docs {
		out[i] = *docs[i].election()
	}
	return out, nil
}

// FirstElectionAt is the opening of the earliest election.
func (s *Store) FirstElectionAt(ctx context.Context) (time.Time, bool, error) {
	var d electionDoc
	err := s.elections.Collection().FindOne(ctx, bson.M{}, options.FindOne().
		SetSort(bson.D{{Key: "opened_at", Value: 1}}).SetProjection(bson.M{"opened_at": 1})).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, err
	}
	return d.OpenedAt.UTC(), true, nil
}

// Offices returns all five offices, empty ones for those never stored.
func (s *Store) Offices(ctx context.Context) ([]domain.OfficeState, error) {
	docs, err := mongox.FindAll[officeDoc](ctx, s.offices.Collection(), bson.M{}, options.Find().SetProjection(bson.M{mongox.OutboxField: 0}))
	if err != nil {
		return nil, err
	}
	byRole := map[string]officeDoc{}
	for _, d := range docs {
		byRole[d.ID] = d
	}
	out := make([]domain.OfficeState, len(domain.Offices))
	for i, role := range domain.Offices {
		d, ok := byRole[string(role)]
		if !ok {
			d = officeDoc{ID: string(role)}
		}
		out[i] = *d.office()
	}
	return out, nil
}

// ChangeOffice applies fn to the office, storing it first if it was never held.
func (s *Store) ChangeOffice(ctx context.Context, role domain.Office, fn func(*domain.OfficeState) ([]domain.Event, error)) (domain.OfficeState, error) {
	upd := change(s, fn, (*officeDoc).office, (*officeDoc).set)
	d, err := s.offices.Update(ctx, string(role), upd)
	if errors.Is(err, mongox.ErrNotFound) {
		if _, err := s.offices.Insert(ctx, string(role), officeDoc{ID: string(role)}); err != nil && !errors.Is(err, mongox.ErrDuplicate) {
			return domain.OfficeState{}, err
		}
		d, err = s.offices.Update(ctx, string(role), upd)
	}
	if err != nil {
		return domain.OfficeState{}, changeErr(err, func() error { return fmt.Errorf("office %s vanished", role) })
	}
	return *d.office(), nil
}
