package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/bulletin/internal/domain"
)

// MirroredProjections is the projections adapter of the embedded default,
// where this process is the database's only writer: the MongoDB adapter,
// with every kind's stored records in memory (recordMirror), so that a
// save knows the stored revision without a read and a start restores the
// records from the copy.
type MirroredProjections struct {
	*Projections
}

var _ domain.ProjectionRepository = (*MirroredProjections)(nil)

// NewMirroredProjections keeps the records as NewProjections does, with the
// in-memory copies. db must be exclusive: another writer's records would
// never reach the copies.
func NewMirroredProjections(db *mongox.DB) *MirroredProjections {
	if !db.Exclusive() {
		panic("store.NewMirroredProjections: the database is shared; use NewProjections")
	}
	return &MirroredProjections{Projections: NewProjections(db)}
}

// Save writes a record over the stored one unless the stored one has a
// higher revision: the stored revision is known in memory, so Save is
// SaveAll of one record and needs no read.
func (m *MirroredProjections) Save(ctx context.Context, r domain.Record) (saved bool, err error) {
	all, err := m.SaveAll(ctx, []domain.Record{r})
	if err != nil {
		return false, err
	}
	return all[0], nil
}

// SaveAll saves records as Save saves each, in one write per collection:
// saved[i] tells whether records[i] was written. Records must have
// distinct keys per kind (the newest state of each).
func (m *MirroredProjections) SaveAll(ctx context.Context, records []domain.Record) (saved []bool, err error) {
	byKind, err := groupByKind(records)
	if err != nil {
		return nil, err
	}
	saved = make([]bool, len(records))
	for kind, idx := range byKind {
		if err := m.saveKnown(ctx, kind, records, idx, saved); err != nil {
			return nil, err
		}
	}
	return saved, nil
}

// saveKnown writes, under their locks, the records whose stored revision
// (known in memory: this process is the only writer) is not higher: the
// new ones in one insert (one transaction on FerretDB, where an upsert
// costs a query and a transaction per document), the others replaced with
// an exact _id filter, the one FerretDB serves from an index.
func (m *MirroredProjections) saveKnown(ctx context.Context, kind domain.RecordKind, records []domain.Record, idx []int, saved []bool) error {
	coll := m.coll(kind)
	revs := copyOf(m.db, kind)
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
		defer m.db.Lock(coll, r.Key())()
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

// Load hands every stored record to restore from the kinds' copies (the
// snapshot of a clean stop, or one scan each), which SaveAll keeps.
func (m *MirroredProjections) Load(ctx context.Context, restore func(domain.Record)) error {
	for kind := range projectionCollections {
		if err := copyOf(m.db, kind).load(ctx, m.coll(kind), restore); err != nil {
			return err
		}
	}
	return nil
}

// Drop removes every projection record and empties the copies (the first
// step of a rebuild).
func (m *MirroredProjections) Drop(ctx context.Context) error {
	if err := m.Projections.Drop(ctx); err != nil {
		return err
	}
	for kind := range projectionCollections {
		copyOf(m.db, kind).clear()
	}
	return nil
}
