package store

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/mongox"
)

func (s *Store) markStale(id string, err error) {
	s.log.Warn("ticket projection behind; will roll forward", slog.String("ticket_id", id), slog.String("error", err.Error()))
	s.mu.Lock()
	s.stale[id] = true
	s.mu.Unlock()
}

func (s *Store) clearStale(id string) {
	s.mu.Lock()
	delete(s.stale, id)
	s.mu.Unlock()
}

// Run rolls stale projections forward every second until ctx ends.
func (s *Store) Run(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.mu.Lock()
		ids := make([]string, 0, len(s.stale))
		for id := range s.stale {
			ids = append(ids, id)
		}
		s.mu.Unlock()
		for _, id := range ids {
			s.rollForward(ctx, id)
		}
	}
}

func (s *Store) rollForward(ctx context.Context, id string) {
	unlock := s.db.LockKey(id)
	defer unlock()
	if _, _, err := s.load(ctx, id); err != nil {
		s.log.Warn("roll ticket projection forward", slog.String("ticket_id", id), slog.String("error", err.Error()))
	}
}

// Repair rolls forward every ticket filed or changed since a time: what a
// crash between a decision and its projection may have left behind.
func (s *Store) Repair(ctx context.Context, since time.Time) error {
	ids := map[string]bool{}
	collect := func(coll *mongo.Collection, field, idField string) error {
		rows, err := mongox.FindAll[bson.M](ctx, coll, bson.M{field: bson.M{"$gte": since}}, options.Find().SetProjection(bson.M{idField: 1}))
		if err != nil {
			return fmt.Errorf("repair: %w", err)
		}
		for _, r := range rows {
			if id, ok := r[idField].(string); ok {
				ids[id] = true
			}
		}
		return nil
	}
	if err := collect(s.filings, "created_at", "_id"); err != nil {
		return err
	}
	if err := collect(s.changes, "at", "ticket_id"); err != nil {
		return err
	}
	for id := range ids {
		unlock := s.db.LockKey(id)
		_, _, err := s.load(ctx, id)
		unlock()
		if err != nil {
			return fmt.Errorf("repair ticket %s: %w", id, err)
		}
	}
	return nil
}
