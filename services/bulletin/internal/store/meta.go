package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/bulletin/internal/domain"
)

// Meta keeps the world's own facts: the day it was founded (its first
// start) and the feed's epoch, which a rebuild renews because it renumbers
// the stream.
type Meta struct {
	coll *mongo.Collection
}

var _ domain.WorldFacts = (*Meta)(nil)

// NewMeta uses db's "meta" collection.
func NewMeta(db *mongox.DB) *Meta { return &Meta{coll: db.Collection("meta")} }

type worldDoc struct {
	ID      string    `bson:"_id"`
	Founded time.Time `bson:"founded"`
}

type epochDoc struct {
	ID    string `bson:"_id"`
	Epoch string `bson:"epoch"`
}

// Founded returns the stored founding time, storing now first if this is
// the world's first start. The insert of a fixed _id decides between two
// first starts, so the date never changes afterwards.
func (s *Meta) Founded(ctx context.Context, now time.Time) (time.Time, error) {
	_, err := s.coll.InsertOne(ctx, worldDoc{ID: "world", Founded: now.UTC()})
	if err != nil && !mongox.IsDuplicate(err) {
		return time.Time{}, fmt.Errorf("record founding date: %w", err)
	}
	var d worldDoc
	if err := s.coll.FindOne(ctx, bson.M{"_id": "world"}).Decode(&d); err != nil {
		return time.Time{}, fmt.Errorf("read founding date: %w", err)
	}
	return d.Founded.UTC(), nil
}

// Epoch returns the feed's epoch, creating one if there is none.
func (s *Meta) Epoch(ctx context.Context) (string, error) {
	var d epochDoc
	err := s.coll.FindOne(ctx, bson.M{"_id": "feed"}).Decode(&d)
	if err == nil {
		return d.Epoch, nil
	}
	if !errors.Is(err, mongo.ErrNoDocuments) {
		return "", fmt.Errorf("read feed epoch: %w", err)
	}
	_, err = s.coll.InsertOne(ctx, epochDoc{ID: "feed", Epoch: newEpoch()})
	if err != nil && !mongox.IsDuplicate(err) {
		return "", fmt.Errorf("record feed epoch: %w", err)
	}
	return s.Epoch(ctx)
}

// RenewEpoch gives the feed a new epoch (after a rebuild).
func (s *Meta) RenewEpoch(ctx context.Context) error {
	if _, err := s.coll.DeleteOne(ctx, bson.M{"_id": "feed"}); err != nil {
		return fmt.Errorf("renew feed epoch: %w", err)
	}
	_, err := s.Epoch(ctx)
	return err
}

func newEpoch() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
