// Package store is the bulletin's storage: the projection records, the
// feed, the announcements the ambassador posts (with their outbox) and the
// world's own small facts. The projections and the feed each have two
// adapters: the MongoDB one (Projections, Feed: production queries only),
// and a mirrored one (MirroredProjections, MirroredFeed) that embeds it for
// the embedded default, where this process is the database's only writer,
// and answers reads from memory.
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

// projectionCollections names the collection of each record kind. They are
// the aggregator's alone and can be dropped and rebuilt by replay.
var projectionCollections = map[domain.RecordKind]string{
	domain.KindCitizen:      "proj_citizens",
	domain.KindPlot:         "proj_plots",
	domain.KindTicket:       "proj_tickets",
	domain.KindProposal:     "proj_proposals",
	domain.KindElection:     "proj_elections",
	domain.KindSteward:      "proj_stewards",
	domain.KindAnnouncement: "proj_announcements",
	domain.KindGarden:       "proj_garden",
}

// Projections is the MongoDB adapter of the aggregator's records: every
// write guarded by the stored revision, every read a query.
type Projections struct {
	db *mongox.DB
	// beforeWrite, when set, runs between Save's read and its write: tests
	// use it to play another replica that writes first.
	beforeWrite func(ctx context.Context, key string)
}

var _ domain.ProjectionRepository = (*Projections)(nil)

// NewProjections uses db's proj_* collections.
func NewProjections(db *mongox.DB) *Projections { return &Projections{db: db} }

func (s *Projections) coll(k domain.RecordKind) *mongo.Collection {
	return s.db.Collection(projectionCollections[k])
}

// maxSaveAttempts bounds Save's retries when other replicas keep writing
// the same record between its read and its write.
const maxSaveAttempts = 10

// Save writes a record over the stored one unless the stored one has a
// higher revision. With the record's lock held it reads the stored
// revision, decides, and replaces the document guarded by the revision it
// read (db.Guarded: on a shared database a replica's write in between makes
// the guard miss and Save decides again; on an exclusive one the lock is the
// guard and the filter stays an exact _id lookup).
func (s *Projections) Save(ctx context.Context, r domain.Record) (saved bool, err error) {
	doc := toDoc(r)
	if doc == nil {
		return false, fmt.Errorf("save projection: unknown record %T", r)
	}
	coll := s.coll(r.Kind())
	defer s.db.Lock(coll, r.Key())()
	for range maxSaveAttempts {
		stored, found, err := storedRev(ctx, coll, r.Key())
		if err != nil {
			return false, fmt.Errorf("save %s %s: %w", r.Kind(), r.Key(), err)
		}
		if found && stored > r.Revision() {
			return false, nil // a newer state is stored: it stays
		}
		guard := bson.M{"rev": bson.M{"$exists": false}}
		if found {
			guard = bson.M{"rev": stored}
		}
		if s.beforeWrite != nil {
			s.beforeWrite(ctx, r.Key())
		}
		_, err = coll.ReplaceOne(ctx, s.db.Guarded(r.Key(), guard), doc, options.Replace().SetUpsert(true))
		if mongox.IsDuplicate(err) {
			continue // a replica wrote the record first: decide again on what it wrote
		}
		if err != nil {
			return false, fmt.Errorf("save %s %s: %w", r.Kind(), r.Key(), err)
		}
		return true, nil
	}
	return false, fmt.Errorf("save %s %s: %w", r.Kind(), r.Key(), mongox.ErrVersionClash)
}

// storedRev is the revision of the stored record, read by its _id alone.
func storedRev(ctx context.Context, coll *mongo.Collection, key string) (rev uint64, found bool, err error) {
	var d struct {
		Rev uint64 `bson:"rev"`
	}
	err = coll.FindOne(ctx, bson.M{"_id": key}, options.FindOne().SetProjection(bson.M{"rev": 1})).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	return d.Rev, true, nil
}

// Load reads every stored record and hands each to restore.
func (s *Projections) Load(ctx context.Context, restore func(domain.Record)) error {
	for kind := range projectionCollections {
		if err := s.loadKind(ctx, kind, restore); err != nil {
			return err
		}
	}
	return nil
}

func (s *Projections) loadKind(ctx context.Context, kind domain.RecordKind, restore func(domain.Record)) error {
	cur, err := s.coll(kind).Find(ctx, bson.M{}, options.Find().SetBatchSize(2000))
	if err != nil {
		return fmt.Errorf("load %s records: %w", kind, err)
	}
	defer cur.Close(ctx)
	for cur.Next(ctx) {
		r, err := decode(kind, cur)
		if err != nil {
			return fmt.Errorf("decode %s record: %w", kind, err)
		}
		restore(r)
	}
	return cur.Err()
}

type recordDoc interface{ record() domain.Record }

func decode(kind domain.RecordKind, cur *mongo.Cursor) (domain.Record, error) {
	var d recordDoc
	var err error
	switch kind {
	case domain.KindCitizen:
		var doc citizenDoc
		err, d = cur.Decode(&doc), &doc
	case domain.KindPlot:
		var doc plotDoc
		err, d = cur.Decode(&doc), &doc
	case domain.KindTicket:
		var doc ticketDoc
		err, d = cur.Decode(&doc), &doc
	case domain.KindProposal:
		var doc proposalDoc
		err, d = cur.Decode(&doc), &doc
	case domain.KindElection:
		var doc electionDoc
		err, d = cur.Decode(&doc), &doc
	case domain.KindSteward:
		var doc stewardDoc
		err, d = cur.Decode(&doc), &doc
	case domain.KindAnnouncement:
		var doc announcementDoc
		err, d = cur.Decode(&doc), &doc
	case domain.KindGarden:
		var doc gardenDoc
		err, d = cur.Decode(&doc), &doc
	default:
		return nil, errors.New("unknown record kind " + string(kind))
	}
	if err != nil {
		return nil, err
	}
	return d.record(), nil
}

// Drop removes every projection record (the first step of a rebuild).
func (s *Projections) Drop(ctx context.Context) error {
	for _, name := range projectionCollections {
		if err := s.db.Collection(name).Drop(ctx); err != nil {
			return fmt.Errorf("drop %s: %w", name, err)
		}
	}
	return nil
}
