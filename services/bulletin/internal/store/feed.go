package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/bulletin/internal/domain"
)

// Feed is the feed's MongoDB adapter: it stores every feed entry, keyed by
// the id of the event that made it, with the sequence number it was applied
// under (the live stream's order), and answers every read with a query the
// indexes below serve.
type Feed struct {
	coll *mongo.Collection
	// inserted, when set, is told each entry an insert stored, as the
	// database returns it (MirroredFeed keeps its copy by it).
	inserted func(feedDoc)
}

var _ domain.FeedRepository = (*Feed)(nil)

// NewFeed uses db's "feed" collection.
func NewFeed(db *mongox.DB) *Feed {
	return &Feed{coll: db.Collection("feed")}
}

type feedDoc struct {
	EventID string    `bson:"_id"`
	Seq     int64     `bson:"seq"`
	Type    string    `bson:"type"`
	At      time.Time `bson:"at"`
	Line    string    `bson:"line"`
	Body    *string   `bson:"body"`
	ItemID  string    `bson:"item_id"`
}

func (d feedDoc) entry() domain.StoredFeedEntry {
	return domain.StoredFeedEntry{Seq: d.Seq, FeedEntry: domain.FeedEntry{EventID: d.EventID, Item: domain.FeedItem{
		Type: domain.FeedType(d.Type), At: d.At.UTC(), Line: d.Line, Body: d.Body, ID: d.ItemID,
	}}}
}

// EnsureIndexes creates the indexes of the stream (seq) and of the newest-
// first pages, with and without a type filter.
func (s *Feed) EnsureIndexes(ctx context.Context) error {
	return mongox.EnsureIndexes(ctx, s.coll,
		mongox.Index("seq", true, bson.E{Key: "seq", Value: 1}),
		mongox.Index("newest", false, bson.E{Key: "at", Value: -1}, bson.E{Key: "_id", Value: -1}),
		mongox.Index("type_newest", false, bson.E{Key: "type", Value: 1}, bson.E{Key: "at", Value: -1}, bson.E{Key: "_id", Value: -1}),
	)
}

// ErrSeqTaken means another writer used the sequence number: two
// aggregators wrote to one database (an old leader that had not yet noticed
// its lease was gone).
var ErrSeqTaken = domain.ErrFeedSeqTaken

// Insert stores an entry unless one with its event id exists (inserted
// false): the event was applied before, under its original seq.
func (s *Feed) Insert(ctx context.Context, e domain.FeedEntry, seq int64) (inserted bool, err error) {
	all, err := s.InsertAll(ctx, []domain.StoredFeedEntry{{Seq: seq, FeedEntry: e}})
	if err != nil {
		return false, err
	}
	return all[0], nil
}

// InsertAll stores entries as Insert stores each, in one write:
// inserted[i] tells whether entries[i] is stored under its seq. An entry
// found stored under its own seq counts as inserted (a retry after a write
// whose answer was lost), so that it still reaches live subscribers.
func (s *Feed) InsertAll(ctx context.Context, entries []domain.StoredFeedEntry) (inserted []bool, err error) {
	docs := make([]any, len(entries))
	for i, e := range entries {
		docs[i] = feedDoc{EventID: e.EventID, Seq: e.Seq, Type: string(e.Item.Type), At: e.Item.At,
			Line: e.Item.Line, Body: e.Item.Body, ItemID: e.Item.ID}
	}
	_, err = s.coll.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	inserted = make([]bool, len(entries))
	if err != nil {
		if inserted, err = s.decide(ctx, entries, err); err != nil {
			return nil, err
		}
	} else {
		for i := range inserted {
			inserted[i] = true
		}
	}
	if s.inserted != nil {
		for i, ok := range inserted {
			if ok {
				s.inserted(docs[i].(feedDoc))
			}
		}
	}
	return inserted, nil
}

// decide tells each entry's fate after an insert refused some: servers do
// not all say alike which of the others were written (FerretDB may stop at
// the first refusal), so each is looked up by its event id. An entry
// neither stored nor refused was not tried: the write fails, to be tried
// again, which then finds the others stored under their own seqs.
func (s *Feed) decide(ctx context.Context, entries []domain.StoredFeedEntry, insertErr error) ([]bool, error) {
	var bw mongo.BulkWriteException
	if !errors.As(insertErr, &bw) || bw.WriteConcernError != nil {
		return nil, fmt.Errorf("insert %d feed entries: %w", len(entries), insertErr)
	}
	refused := map[int]bool{}
	for _, we := range bw.WriteErrors {
		if !mongox.IsDuplicate(mongo.WriteException{WriteErrors: mongo.WriteErrors{we.WriteError}}) {
			return nil, fmt.Errorf("insert %d feed entries: %w", len(entries), insertErr)
		}
		refused[we.Index] = true
	}
	inserted := make([]bool, len(entries))
	for i, e := range entries {
		var d feedDoc
		err := s.coll.FindOne(ctx, bson.M{"_id": e.EventID}).Decode(&d)
		switch {
		case errors.Is(err, mongo.ErrNoDocuments) && refused[i]:
			return nil, fmt.Errorf("%w: %d", ErrSeqTaken, e.Seq)
		case errors.Is(err, mongo.ErrNoDocuments):
			return nil, fmt.Errorf("insert %d feed entries: %s was not written: %w", len(entries), e.EventID, insertErr)
		case err != nil:
			return nil, fmt.Errorf("check feed entry %s: %w", e.EventID, err)
		}
		// Stored under its event id: applied before, or under this very
		// seq by an earlier attempt of this write (whose answer was lost).
		inserted[i] = d.Seq == e.Seq
	}
	return inserted, nil
}

// MaxSeq is the highest sequence number used, 0 for an empty feed.
func (s *Feed) MaxSeq(ctx context.Context) (int64, error) {
	var d feedDoc
	err := s.coll.FindOne(ctx, bson.M{}, options.FindOne().SetSort(bson.D{{Key: "seq", Value: -1}})).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read last feed seq: %w", err)
	}
	return d.Seq, nil
}

// Page returns up to limit entries newest first, after the key when given,
// of one type when given. Keyset paging: an entry inserted while a client
// pages never shifts the pages it has not read yet.
func (s *Feed) Page(ctx context.Context, typ domain.FeedType, after *domain.FeedPageKey, limit int) ([]domain.StoredFeedEntry, error) {
	filter := bson.M{}
	if typ != "" {
		filter["type"] = string(typ)
	}
	if after != nil {
		filter["$or"] = bson.A{
			bson.M{"at": bson.M{"$lt": after.At}},
			bson.M{"at": after.At, "_id": bson.M{"$lt": after.EventID}},
		}
	}
	return s.find(ctx, filter, options.Find().SetSort(bson.D{{Key: "at", Value: -1}, {Key: "_id", Value: -1}}).SetLimit(int64(limit)))
}

// Since returns up to limit entries applied after seq, in stream order.
func (s *Feed) Since(ctx context.Context, seq int64, limit int) ([]domain.StoredFeedEntry, error) {
	return s.find(ctx, bson.M{"seq": bson.M{"$gt": seq}}, options.Find().SetSort(bson.D{{Key: "seq", Value: 1}}).SetLimit(int64(limit)))
}

func (s *Feed) find(ctx context.Context, filter bson.M, opts *options.FindOptions) ([]domain.StoredFeedEntry, error) {
	docs, err := mongox.FindAll[feedDoc](ctx, s.coll, filter, opts)
	if err != nil {
		return nil, fmt.Errorf("read feed: %w", err)
	}
	out := make([]domain.StoredFeedEntry, len(docs))
	for i, d := range docs {
		out[i] = d.entry()
	}
	return out, nil
}

// Drop removes the whole feed (a rebuild writes it again).
func (s *Feed) Drop(ctx context.Context) error {
	if err := s.drop(ctx); err != nil {
		return err
	}
	return s.EnsureIndexes(ctx)
}

// drop removes the feed collection, indexes and all.
func (s *Feed) drop(ctx context.Context) error {
	if err := s.coll.Drop(ctx); err != nil {
		return fmt.Errorf("drop feed: %w", err)
	}
	return nil
}
