package store

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/tickets/internal/domain"
)

// listProjection leaves out what a list never shows: who upvoted, and the
// outbox.
var listProjection = bson.M{"upvoters": 0, mongox.OutboxField: 0}

// List returns up to q.Limit tickets in list order after q.After. The
// position bound is a range on the index, never a skip, so a page deep in
// the list costs what the first one does.
func (s *Store) List(ctx context.Context, q domain.ListQuery) ([]domain.Snapshot, error) {
	filter := bson.M{}
	if q.Filter.Status != nil {
		filter["status"] = string(*q.Filter.Status)
	}
	if q.Filter.Category != nil {
		filter["category"] = string(*q.Filter.Category)
	}
	if q.After != nil {
		// created_at ≤ c bounds the index scan; the $or drops the tickets of
		// that same millisecond that were already on the previous page.
		filter["created_at"] = bson.M{"$lte": q.After.CreatedAt}
		filter["$or"] = bson.A{
			bson.M{"created_at": bson.M{"$lt": q.After.CreatedAt}},
			bson.M{"_id": bson.M{"$lt": string(q.After.ID)}},
		}
	}
	opts := options.Find().
		SetSort(bson.D{{Key: "created_at", Value: -1}, {Key: "_id", Value: -1}}).
		SetLimit(int64(q.Limit)).
		SetProjection(listProjection)
	docs, err := mongox.FindAll[ticketDoc](ctx, s.Collection(), filter, opts)
	if err != nil {
		return nil, fmt.Errorf("list tickets: %w", err)
	}
	out := make([]domain.Snapshot, len(docs))
	for i, d := range docs {
		out[i] = d.snapshot()
	}
	return out, nil
}

// Counts returns how many tickets are in each status, over all tickets, in
// one pass. The hint makes MongoDB answer from the status index alone (the
// pipeline needs no other field); FerretDB ignores hints.
func (s *Store) Counts(ctx context.Context) (domain.Counts, error) {
	pipeline := mongo.Pipeline{{{Key: "$group", Value: bson.M{"_id": "$status", "n": bson.M{"$sum": 1}}}}}
	cur, err := s.Collection().Aggregate(ctx, pipeline, options.Aggregate().SetHint("status_newest"))
	if err != nil {
		return domain.Counts{}, fmt.Errorf("count tickets: %w", err)
	}
	var rows []struct {
		Status string `bson:"_id"`
		N      int64  `bson:"n"`
	}
	if err := cur.All(ctx, &rows); err != nil {
		return domain.Counts{}, fmt.Errorf("read ticket counts: %w", err)
	}
	var c domain.Counts
	for _, r := range rows {
		switch domain.Status(r.Status) {
		case domain.StatusOpen:
			c.Open = r.N
		case domain.StatusAcknowledged:
			c.Acknowledged = r.N
		case domain.StatusResolved:
			c.Resolved = r.N
		}
	}
	return c, nil
}
