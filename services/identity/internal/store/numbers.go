package store

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// NumberFor gives agentID the next citizen number, or the one it already
// holds. A number is a document whose _id is the number, and a unique index
// on agent_id keeps one number per agent: unique indexes decide between
// concurrent claimants on every backend, so numbers never repeat or skip
// (an atomic $inc is not available everywhere). The next free number is
// remembered in memory so a registration costs one insert, not a scan;
// another replica's insert shows up as a duplicate and moves it on.
func (s *Citizens) NumberFor(ctx context.Context, agentID string) (int64, error) {
	defer s.db.LockKey("citizen_numbers")()
	if s.next == 0 {
		var last struct {
			N int64 `bson:"_id"`
		}
		err := s.numbers.FindOne(ctx, bson.M{}, options.FindOne().SetSort(bson.D{{Key: "_id", Value: -1}})).Decode(&last)
		if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
			return 0, fmt.Errorf("read last citizen number: %w", err)
		}
		s.next = last.N + 1
	}
	for attempt := 0; attempt < 1000; attempt++ {
		_, err := s.numbers.InsertOne(ctx, bson.M{"_id": s.next, "agent_id": agentID})
		if err == nil {
			s.next++
			return s.next - 1, nil
		}
		if !mongo.IsDuplicateKeyError(err) {
			return 0, fmt.Errorf("claim citizen number: %w", err)
		}
		var held struct {
			N int64 `bson:"_id"`
		}
		err = s.numbers.FindOne(ctx, bson.M{"agent_id": agentID}).Decode(&held)
		if err == nil {
			return held.N, nil // a repaired registration keeps the number it had
		}
		if !errors.Is(err, mongo.ErrNoDocuments) {
			return 0, fmt.Errorf("read citizen number: %w", err)
		}
		s.next++ // taken by another replica
	}
	return 0, errors.New("claim citizen number: too much contention")
}
