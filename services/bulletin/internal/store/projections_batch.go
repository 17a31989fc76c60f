package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

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
	saved = make([]bool, len(records))
	byKind := map[domain.RecordKind][]int{}
	for i, r := range records {
		if toDoc(r) == nil {
			return nil, fmt.Errorf("save projection: unknown record %T", r)
		}
		byKind[r.Kind()] = append(byKind[r.Kind()], i)
	}
	for kind, idx := range byKind {
		var err error
		if s.db.Exclusive() {
			err = s.saveExclusive(ctx, kind, records, idx, saved)
		} else {
			err = s.saveShared(ctx, kind, records, idx, saved)
		}
		if err != nil {
			return nil, err
		}
	}
	return saved, nil
}

// saveExclusive writes, under their locks, the records whose stored
// revision (known in memory: this process is the only writer) is not
// higher: the new ones in one insert (one transaction on FerretDB, where
// an upsert costs a query and a transaction per document), the others
// replaced with an exact _id filter, the one FerretDB serves from an index.
func (s *Projections) saveExclusive(ctx context.Context, kind domain.RecordKind, records []domain.Record, idx []int, saved []bool) error {
	coll := s.coll(kind)
	revs := s.mirror(kind)
	if err := revs.load(ctx, coll, func(domain.Record) {}); err != nil {
		return err
	}
	// Locks in key order, so that two batches never wait on each other.
	idx = slices.SortedFunc(slices.Values(idx), func(a, b int) int { return cmp.Compare(records[a].Key(), records[b].Key()) })
	var fresh []any
	var freshIDs []string
	var replace []mongo.WriteModel
	var written []int
	for _, i := range idx {
		r := records[i]
		defer s.db.Lock(coll, r.Key())()
		stored, ok := revs.rev(r.Key())
		switch {
		case !ok:
			fresh, freshIDs = append(fresh, toDoc(r)), append(freshIDs, r.Key())
		case stored > r.Revision():
			continue // a newer state is stored: it stays
		default:
			replace = append(replace, mongo.NewReplaceOneModel().SetFilter(bson.M{"_id": r.Key()}).SetReplacement(toDoc(r)).SetUpsert(true))
		}
		written = append(written, i)
	}
	if len(fresh) > 0 {
		if _, err := coll.InsertMany(ctx, fresh, options.InsertMany().SetOrdered(false)); err != nil {
			// Memory said new, the store disagrees (or the insert failed
			// part way): replacing by _id is right in every case.
			for j, d := range fresh {
				replace = append(replace, mongo.NewReplaceOneModel().SetFilter(bson.M{"_id": freshIDs[j]}).SetReplacement(d).SetUpsert(true))
			}
		}
	}
	if len(replace) > 0 {
		if _, err := coll.BulkWrite(ctx, replace, options.BulkWrite().SetOrdered(false)); err != nil {
			return fmt.Errorf("save %d %s records: %w", len(replace), kind, err)
		}
	}
	for _, i := range written {
		revs.put(records[i])
		saved[i] = true
	}
	return nil
}

// saveShared writes each record guarded by its revision (a stored record
// with a higher one makes the filter miss and the upsert's insert a
// duplicate); a duplicate is decided again by Save, which reads what the
// other replica wrote.
func (s *Projections) saveShared(ctx context.Context, kind domain.RecordKind, records []domain.Record, idx []int, saved []bool) error {
	models := make([]mongo.WriteModel, len(idx))
	for j, i := range idx {
		r := records[i]
		guard := bson.M{"rev": bson.M{"$not": bson.M{"$gt": r.Revision()}}}
		models[j] = mongo.NewReplaceOneModel().SetFilter(s.db.Guarded(r.Key(), guard)).SetReplacement(toDoc(r)).SetUpsert(true)
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
