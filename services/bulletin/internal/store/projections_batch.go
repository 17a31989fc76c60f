package store

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/bulletin/internal/domain"
)

// SaveAll saves records as Save saves each, in one write per collection:
// saved[i] tells whether records[i] was written. Records must have
// distinct keys per kind (the newest state of each).
func (s *Projections) SaveAll(ctx context.Context, records []domain.Record) (saved []bool, err error) {
	byKind, err := groupByKind(records)
	if err != nil {
		return nil, err
	}
	saved = make([]bool, len(records))
	for kind, idx := range byKind {
		if err := s.saveGuarded(ctx, kind, records, idx, saved); err != nil {
			return nil, err
		}
	}
	return saved, nil
}

// groupByKind is the indexes of records per kind, each kind's collection
// being written once.
func groupByKind(records []domain.Record) (map[domain.RecordKind][]int, error) {
	byKind := map[domain.RecordKind][]int{}
	for i, r := range records {
		if toDoc(r) == nil {
			return nil, fmt.Errorf("save projection: unknown record %T", r)
		}
		byKind[r.Kind()] = append(byKind[r.Kind()], i)
	}
	return byKind, nil
}

// saveGuarded writes each record guarded by its revision (a stored record
// with a higher one makes the filter miss and the upsert's insert a
// duplicate); a duplicate is decided again by Save, which reads what the
// other replica wrote. The guard is in the filter whatever the database's
// mode: a batch takes no locks, so the guard alone keeps an older record
// from replacing a newer one.
func (s *Projections) saveGuarded(ctx context.Context, kind domain.RecordKind, records []domain.Record, idx []int, saved []bool) error {
	models := make([]mongo.WriteModel, len(idx))
	for j, i := range idx {
		r := records[i]
		filter := bson.M{"_id": r.Key(), "rev": bson.M{"$not": bson.M{"$gt": r.Revision()}}}
		models[j] = mongo.NewReplaceOneModel().SetFilter(filter).SetReplacement(toDoc(r)).SetUpsert(true)
	}
	_, err := s.coll(kind).BulkWrite(ctx, models, options.BulkWrite().SetOrdered(false))
	if err == nil {
		for _, i := range idx {
			saved[i] = true
		}
		return nil
	}
	var bw mongo.BulkWriteException
	if !errors.As(err, &bw) || bw.WriteConcernError != nil {
		return fmt.Errorf("save %d %s records: %w", len(models), kind, err)
	}
	for _, we := range bw.WriteErrors {
		if !mongox.IsDuplicate(mongo.WriteException{WriteErrors: mongo.WriteErrors{we.WriteError}}) {
			return fmt.Errorf("save %d %s records: %w", len(models), kind, err)
		}
	}
	// A guard missed: a replica stored a newer record, or wrote one in
	// between. Which writes of the batch were made is not told alike by
	// every server (FerretDB stops at the first error), so Save decides
	// each record again on what is stored; saving one twice is harmless.
	for _, i := range idx {
		if saved[i], err = s.Save(ctx, records[i]); err != nil {
			return err
		}
	}
	return nil
}
